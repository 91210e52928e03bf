// A deleted source file must not leave a stale compiled test or module behind in dist/.
import { rmSync } from 'node:fs'
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true })
