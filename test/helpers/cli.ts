// The `tablegate` command line, and what its runs must look like: a success says nothing on
// stderr, a refusal exactly one line there. `cliRunnerInProcess` runs the CLI's main() in this
// process, as bin/tablegate.js does in its own, so a command costs no Node start and no second
// load of tablegate; `cliRunner` runs the real bin/tablegate.js over dist/ as a child process, for
// the few tests that keep the binary itself covered and for what only a process shows.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { main } from '../../lib/cli/main.js'

// dist/test/helpers/cli.js → the repository root.
export const root = fileURLToPath(new URL('../../../', import.meta.url))
export const bin = join(root, 'bin', 'tablegate.js')

export interface Run { code: number | null, stdout: string, stderr: string }

export interface RunOptions {
  /** Variables over the run's environment; undefined unsets one. */
  env?: Record<string, string | undefined>
  /** The working directory (default: the runner's, else the repository root). */
  cwd?: string
  /** The `--config` file (default: the runner's); null: no `--config`. */
  config?: string | null
}

/** Another Node, or options of its own: only a child process has them. */
export interface SpawnOptions extends RunOptions { node?: string, nodeArgs?: string[] }

export type Cli = (args: string[], options?: RunOptions) => Promise<Run>

/** DATABASE_URL and AUTH_SECRET of every run (unset when not given), and its --config and working directory. */
export interface CliDefaults { databaseUrl?: string, secret?: string, config?: string, cwd?: string }

/**
 * The run's environment: this process's, less what a test must give itself (one set here would
 * otherwise change what the command does), with the database and the secret and the run's own.
 */
function runEnv (defaults: CliDefaults, options: RunOptions): Record<string, string> {
  const env: Record<string, string | undefined> = { ...process.env }
  for (const key of ['TABLEGATE_CONFIG', 'AUTH_URL', 'ADMIN_DATABASE_URL', 'TRUSTED_ORIGINS', 'NODE_OPTIONS']) delete env[key]
  Object.assign(env, { DATABASE_URL: defaults.databaseUrl, AUTH_SECRET: defaults.secret }, options.env)
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined))
}

function argv (args: string[], defaults: CliDefaults, options: RunOptions): string[] {
  const config = options.config === undefined ? defaults.config : options.config
  return config === null || config === undefined ? args : [...args, '--config', config]
}

/** Runs `tablegate <args> --config <config>` as a child process: bin/tablegate.js on this Node (or `node`). */
export function cliRunner (defaults: CliDefaults): (args: string[], options?: SpawnOptions) => Promise<Run> {
  return async (args, options = {}) => {
    const child = spawn(options.node ?? process.execPath, [...options.nodeArgs ?? [], bin, ...argv(args, defaults, options)], {
      cwd: options.cwd ?? defaults.cwd ?? root, env: runEnv(defaults, options), stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
    const code = await new Promise<number | null>((resolve) => { child.on('close', (exitCode) => { resolve(exitCode) }) })
    return { code, stdout, stderr }
  }
}

// The environment and the working directory are the process's, read all through tablegate
// (process.env, process.cwd()), so the in-process runs of a test file take turns: each has them
// to itself, and leaves them as it found them.
let turn: Promise<unknown> = Promise.resolve()

/**
 * Runs `tablegate <args> --config <config>` in this process: main() with the environment and the
 * working directory a child would have, its lines captured as the child's stdout and stderr and
 * its result as the exit code (bin/tablegate.js makes it the process's). One difference: a .js or
 * .mjs config is imported once per process, so a test changing one between runs writes a new file.
 */
export function cliRunnerInProcess (defaults: CliDefaults): Cli {
  return async (args, options = {}) => {
    const run = turn.then(async () => await runInProcess(argv(args, defaults, options), runEnv(defaults, options), options.cwd ?? defaults.cwd ?? root))
    turn = run.catch(() => undefined)
    return await run
  }
}

async function runInProcess (args: string[], env: Record<string, string>, cwd: string): Promise<Run> {
  const outerEnv = { ...process.env }
  const outerCwd = process.cwd()
  let stdout = ''
  let stderr = ''
  replaceEnv(env)
  try {
    process.chdir(cwd)
    const code = await main(args, { out: (line) => { stdout += line + '\n' }, err: (line) => { stderr += line + '\n' } })
    return { code, stdout, stderr }
  } finally {
    process.chdir(outerCwd)
    replaceEnv(outerEnv)
  }
}

/** Makes process.env hold exactly `env`, changed in place (it is no ordinary object: its values reach the children it starts). */
function replaceEnv (env: Record<string, string | undefined>): void {
  for (const key of Object.keys(process.env)) if (!Object.hasOwn(env, key)) delete process.env[key]
  Object.assign(process.env, env)
}

export function ok (run: Run, label: string): void {
  assert.equal(run.code, 0, `${label}: exit ${run.code}\n${run.stderr}`)
  assert.equal(run.stderr, '', label)
}

/** A refusal: non-zero exit, nothing on stdout, exactly one line on stderr (returned). */
export function refusal (run: Run, label: string, pattern: RegExp): string {
  assert.notEqual(run.code, 0, `${label}: exited 0\n${run.stdout}`)
  assert.equal(run.stdout, '', label)
  const lines = run.stderr.split('\n')
  assert.equal(lines.at(-1), '', `${label}: stderr must end with a newline: ${JSON.stringify(run.stderr)}`)
  assert.equal(lines.length, 2, `${label}: expected one stderr line, got ${JSON.stringify(run.stderr)}`)
  assert.match(lines[0]!, pattern, label)
  return lines[0]!
}

/** The CLI's stdout, trimmed, for a run that must succeed. */
export function stdoutOf (cli: Cli): (args: string[]) => Promise<string> {
  return async (args) => {
    const result = await cli(args)
    ok(result, args.join(' '))
    return result.stdout.trimEnd()
  }
}
