// The real `tablegate` command line (bin/tablegate.js over dist/) run as a child process, and what
// its runs must look like: a success says nothing on stderr, a refusal exactly one line there.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

// dist/test/helpers/cli.js → the repository root.
export const root = fileURLToPath(new URL('../../../', import.meta.url))
export const bin = join(root, 'bin', 'tablegate.js')

export interface Run { code: number | null, stdout: string, stderr: string }

export interface RunOptions { env?: Record<string, string>, cwd?: string, config?: string | null, node?: string, nodeArgs?: string[] }

/** Runs `tablegate <args> --config <config>` (unless `config: null`) on a database with a secret, in a clean environment. */
export function cliRunner (defaults: { databaseUrl: string, secret: string, config: string }): (args: string[], options?: RunOptions) => Promise<Run> {
  return async (args, options = {}) => {
    const env: Record<string, string | undefined> = { ...process.env, DATABASE_URL: defaults.databaseUrl, AUTH_SECRET: defaults.secret, ...options.env }
    for (const key of ['TABLEGATE_CONFIG', 'AUTH_URL', 'ADMIN_DATABASE_URL', 'TRUSTED_ORIGINS', 'NODE_OPTIONS']) {
      if (options.env?.[key] === undefined) delete env[key]
    }
    const withConfig = options.config === null ? args : [...args, '--config', options.config ?? defaults.config]
    const child = spawn(options.node ?? process.execPath, [...options.nodeArgs ?? [], bin, ...withConfig], { cwd: options.cwd ?? root, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
    const code = await new Promise<number | null>((resolve) => { child.on('close', (exitCode) => { resolve(exitCode) }) })
    return { code, stdout, stderr }
  }
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
export function stdoutOf (cli: ReturnType<typeof cliRunner>): (args: string[]) => Promise<string> {
  return async (args) => {
    const result = await cli(args)
    ok(result, args.join(' '))
    return result.stdout.trimEnd()
  }
}
