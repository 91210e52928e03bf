// `--instructions`: what a request costs the server in instructions, counted by valgrind's callgrind,
// tablegate beside the floor on the same questions. Requests per second on this machine move by up
// to 2:1 from one second to the next (its speed comes in phases, every process together), and a
// process keeps its start's luck for its life; two instruction counts of the same code came 0.7 %
// and 4 % apart (each process compiles its code anew). It counts the server's own user-space
// work, not the kernel's nor what PostgreSQL and the load generator spend, and not how fast those
// instructions run (cache misses, branches): a figure to tell what a change does to the server's
// own work, beside the throughput runs, not instead.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer, stopServers, type BenchServer, type Measured, type Side } from './harness.js'

export interface InstructionBench {
  readonly env: Record<string, string>
  readonly auth: Record<string, string>
  readonly scenarios: ReadonlyArray<{ readonly name: string, readonly tablegate: Side, readonly floor: Side }>
  /** Requests before the count (the JIT's tiers come with use, not time), then counted. */
  readonly warm: number
  readonly counted: number
  measure (server: BenchServer, side: Side, headers: Record<string, string>, length: { amount: number }): Promise<Measured>
}

function hasCallgrind (): boolean {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' })
    execFileSync('callgrind_control', ['-h'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** Instructions a request of `side` costs `file`'s server: warmed by `warm` requests, then `counted` counted. */
async function perRequest (file: string, side: Side, headers: Record<string, string>, bench: InstructionBench): Promise<number> {
  const out = mkdtempSync(join(tmpdir(), 'tablegate-callgrind-'))
  // --smc-check=all: V8 writes and rewrites the code it runs.
  const server = await startServer(file, bench.env, [], true, ['valgrind', '--quiet', '--tool=callgrind', '--smc-check=all', `--callgrind-out-file=${join(out, 'callgrind.%p')}`])
  try {
    await bench.measure(server, side, headers, { amount: bench.warm })
    const pid = String(server.child.pid)
    execFileSync('callgrind_control', ['-z', pid], { stdio: 'ignore' })
    await bench.measure(server, side, headers, { amount: bench.counted })
    execFileSync('callgrind_control', ['-d', pid], { stdio: 'ignore' })
    const dump = readdirSync(out).find((name) => name.endsWith('.1'))
    const summary = dump === undefined ? undefined : /^summary: (\d+)$/m.exec(readFileSync(join(out, dump), 'utf8'))?.[1]
    if (summary === undefined) throw new Error(`callgrind left no count in ${out}`)
    return Number(summary) / bench.counted
  } finally {
    await stopServers([server])
    rmSync(out, { recursive: true, force: true })
  }
}

/** Each scenario's instructions a request, tablegate's and the floor's, each on a fresh server under callgrind. */
export async function instructionScenarios (bench: InstructionBench): Promise<void> {
  if (!hasCallgrind()) {
    console.log('\n--instructions needs valgrind (Debian: apt-get install valgrind)')
    return
  }
  console.log(`\ninstructions a request (callgrind; ${bench.warm} requests of warm-up, then ${bench.counted} counted; the servers' user space only)`)
  console.log(`${'scenario'.padEnd(50)}${'tablegate'.padStart(12)}${'floor'.padStart(12)}${'tg/floor'.padStart(10)}`)
  for (const scenario of bench.scenarios) {
    const tablegate = await perRequest('tablegate.js', scenario.tablegate, bench.auth, bench)
    const floor = await perRequest('floor.js', scenario.floor, {}, bench)
    console.log(`${scenario.name.padEnd(50)}${Math.round(tablegate).toLocaleString('en').padStart(12)}${Math.round(floor).toLocaleString('en').padStart(12)}${(tablegate / floor).toFixed(3).padStart(10)}`)
  }
}
