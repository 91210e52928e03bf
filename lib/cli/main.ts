// `tablegate <command>`: argv → command. Results go to stdout; every refusal is one line on
// stderr and a non-zero exit code.
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander'
import { serve } from './serve.js'
import { LOG_FORMATS, type LogFormat } from './logging.js'
import { checkAll, migrateAll, withUsers } from './host.js'
import { formatUserTable } from './format.js'
import { addOrganizationCommands } from './organizations.js'
import { runInit } from './init.js'
import { generatePassword } from '../auth/passwords.js'
import type { CliIo } from './io.js'

export type { CliIo }

const defaultIo: CliIo = {
  out: (line) => { process.stdout.write(line + '\n') },
  err: (line) => { process.stderr.write(line + '\n') },
}

function positiveInteger (value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number')
  return Number(value)
}

/** `PORT`, as hosting platforms set it; unset or blank is the default 5173. */
function portFromEnv (value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 5173
  if (!/^\d+$/.test(value.trim()) || Number(value) > 65535) throw new UsageError(`PORT must be a port number, not '${value}'`)
  return Number(value)
}

export function buildProgram (io: CliIo = defaultIo): Command {
  const program = new Command('tablegate')
    .description('A secured AIP-style REST API over PostgreSQL tables, with its own login')
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => { io.out(s.trimEnd()) },
      writeErr: (s) => { io.err(s.trimEnd()) },
      outputError: (s, write) => { write(s.replace(/^error: /, 'tablegate: ')) },
    })

  const configOption = ['--config <file>', 'config file (default: $TABLEGATE_CONFIG or ./tablegate.config.*)'] as const

  program.command('serve')
    .description('serve the API (embedded PostgreSQL unless DATABASE_URL is set)')
    .option(...configOption)
    .option('--port <n>', 'port to listen on (default: $PORT, else 5173)', positiveInteger)
    .option('--host <host>', 'address to listen on', 'localhost')
    .addOption(new Option('--log-format <format>', 'log lines (default: pretty on a terminal, else json)').choices(LOG_FORMATS))
    .option('--workers <n>', 'processes serving the port, e.g. one per core (default: 1)', positiveInteger)
    .action(async (opts: { config?: string, port?: number, host: string, logFormat?: LogFormat, workers?: number }) => {
      if (opts.workers === 0) throw new UsageError('--workers must be at least 1')
      await serve({ ...opts, port: opts.port ?? portFromEnv(process.env.PORT) }, io)
    })

  program.command('migrate')
    .description('create the auth schema and tables, pg_trgm, and apply the config\'s migrations (safe to repeat)')
    .option(...configOption)
    .action(async (opts: { config?: string }) => {
      const applied = await migrateAll(opts.config, io)
      io.out(applied.length === 0 ? 'database is up to date' : `applied ${applied.join(', ')}`)
    })

  program.command('check')
    .description('check the config and its resources against the database, as a start would (changes nothing)')
    .option(...configOption)
    .action(async (opts: { config?: string }) => {
      const resources = await checkAll(opts.config, io)
      io.out(`the config and the database agree (${resources} ${resources === 1 ? 'resource' : 'resources'})`)
    })

  program.command('init')
    .description('write a config serving the tables of an existing database (DATABASE_URL, else the embedded one)')
    .option('--schema <name>', 'the schema to read', 'public')
    .option('--tables <names>', 'only these tables, comma separated')
    .option('--views', 'serve views too, read-only')
    .option('--out <file>', 'the config file to write', 'tablegate.config.ts')
    .option('--force', 'overwrite the file if it exists')
    .action(async (opts: { schema: string, tables?: string, views?: boolean, out: string, force?: boolean }) => {
      const tables = opts.tables?.split(',').map((t) => t.trim()).filter((t) => t !== '')
      await runInit({ ...opts, tables }, io)
    })

  const user = program.command('user').description('manage users')
  user.command('create')
    .description('create a user (the first user is always an admin)')
    .option(...configOption)
    .requiredOption('--email <email>', 'sign-in email')
    .option('--password <password>', 'password (at least 12 characters)')
    .option('--generate-password', 'generate a password and print it once')
    .option('--name <name>', 'display name')
    .option('--role <roles>', 'role, or several comma separated')
    .action(async (opts: { config?: string, email: string, password?: string, generatePassword?: boolean, name?: string, role?: string }) => {
      if ((opts.password === undefined) === (opts.generatePassword !== true)) {
        throw new UsageError('give exactly one of --password and --generate-password')
      }
      const password = opts.password ?? generatePassword()
      const created = await withUsers(opts.config, io, async (users) => await users.create({ email: opts.email, password, name: opts.name, role: opts.role }))
      io.out(`created ${created.email} with role ${created.role}`)
      if (opts.generatePassword === true) io.out(`password: ${password}`)
    })
  user.command('set-role')
    .description('replace the roles of a user')
    .option(...configOption)
    .requiredOption('--email <email>', 'the user')
    .requiredOption('--role <roles>', 'role, or several comma separated')
    .action(async (opts: { config?: string, email: string, role: string }) => {
      const updated = await withUsers(opts.config, io, async (users) => await users.setRole(opts.email, opts.role))
      io.out(`${updated.email} now has role ${updated.role}`)
    })
  for (const [name, banned] of [['ban', true], ['unban', false]] as const) {
    user.command(name)
      .description(banned ? 'ban a user: ends their sessions and blocks sign-in' : 'lift a ban')
      .option(...configOption)
      .requiredOption('--email <email>', 'the user')
      .action(async (opts: { config?: string, email: string }) => {
        const updated = await withUsers(opts.config, io, async (users) => await users.setBanned(opts.email, banned))
        io.out(`${updated.email} is ${banned ? 'banned' : 'no longer banned'}`)
      })
  }
  user.command('delete')
    .description('delete a user with their sessions and accounts')
    .option(...configOption)
    .requiredOption('--email <email>', 'the user')
    .action(async (opts: { config?: string, email: string }) => {
      await withUsers(opts.config, io, async (users) => { await users.delete(opts.email) })
      io.out(`deleted ${opts.email.trim().toLowerCase()}`)
    })
  user.command('list')
    .description('list users (never passwords)')
    .option(...configOption)
    .option('--json', 'print JSON')
    .action(async (opts: { config?: string, json?: boolean }) => {
      const list = await withUsers(opts.config, io, async (users) => await users.list())
      io.out(opts.json === true ? JSON.stringify(list, null, 2) : formatUserTable(list))
    })

  program.command('token')
    .description('mint an access token for a user (default 15 minutes, at most 24 hours)')
    .option(...configOption)
    .requiredOption('--email <email>', 'the user')
    .option('--ttl <seconds>', 'lifetime in seconds', positiveInteger)
    .option('--json', 'print { token, expiresAt }')
    .action(async (opts: { config?: string, email: string, ttl?: number, json?: boolean }) => {
      const issued = await withUsers(opts.config, io, async (users) => await users.issueToken(opts.email, { ttlSeconds: opts.ttl }))
      io.out(opts.json === true ? JSON.stringify(issued) : issued.token)
    })

  addOrganizationCommands(program, configOption, io)
  return program
}

export class UsageError extends Error {}

/** Runs the CLI and returns the exit code. */
export async function main (argv: readonly string[], io: CliIo = defaultIo): Promise<number> {
  const program = buildProgram(io)
  if (argv.length === 0) {
    io.out(program.helpInformation().trimEnd())
    return 1
  }
  try {
    await program.parseAsync([...argv], { from: 'user' })
    return 0
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode
    io.err(`tablegate: ${((err as Error).message ?? String(err)).split('\n')[0]}`)
    return 1
  }
}
