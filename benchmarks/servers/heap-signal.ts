// Bench servers answer SIGUSR2 with `heap <young> <rest>` on stdout: the V8 heap's young generation
// (which V8 sizes by itself, from the machine's memory and the load) and the rest of it, in bytes.
import { getHeapSpaceStatistics } from 'node:v8'

export function answerHeapSignal (): void {
  process.on('SIGUSR2', () => {
    const spaces = getHeapSpaceStatistics()
    const young = spaces.filter((s) => s.space_name.startsWith('new_')).reduce((sum, s) => sum + s.space_size, 0)
    const rest = spaces.filter((s) => !s.space_name.startsWith('new_')).reduce((sum, s) => sum + s.space_size, 0)
    process.stdout.write(`heap ${young} ${rest}\n`)
  })
}
