// `tablegate org <command>`: the host-side organization operations (docs/organizations.md). Each
// refusal is an OrganizationStoreError (or, for an import's file, an ImportFileError), which
// main() prints as one line on stderr with exit 1.
import type { Command } from 'commander'
import { withOrganizations } from './host.js'
import { formatOrganizationTable } from './format.js'
import { readImportFile } from './org-import.js'
import type { CliIo } from './io.js'

export function addOrganizationCommands (program: Command, configOption: readonly [string, string], io: CliIo): void {
  const org = program.command('org').description('manage organizations (with `organizations` configured)')
  org.command('create')
    .description('create an organization with its first owner')
    .option(...configOption)
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--slug <slug>', 'unique: lowercase letters, digits and dashes')
    .requiredOption('--owner <email>', 'the user who owns it')
    .option('--id <id>', 'its id, kept as given (an existing tenant\'s); default: a new random one')
    .action(async (opts: { config?: string, name: string, slug: string, owner: string, id?: string }) => {
      const created = await withOrganizations(opts.config, io, async (organizations) =>
        await organizations.create({ id: opts.id, name: opts.name, slug: opts.slug, owner: opts.owner }))
      const withId = opts.id === undefined ? '' : ` with id ${created.id}`
      io.out(`created organization ${created.slug} (${created.name})${withId} owned by ${opts.owner.trim().toLowerCase()}`)
    })
  org.command('import')
    .description('create organizations with their ids from a CSV file (id,name,slug,owner), all or none; those there already are unchanged')
    .argument('<file>', 'CSV with the header id,name,slug,owner; owner is an existing user\'s email')
    .option(...configOption)
    .action(async (file: string, opts: { config?: string }) => {
      const { entries, lines } = readImportFile(file)
      const result = await withOrganizations(opts.config, io, async (organizations) =>
        await organizations.import(entries, { label: (index) => `line ${lines[index]!}` }))
      io.out(`${result.created.length} created, ${result.unchanged.length} unchanged`)
    })
  org.command('list')
    .description('list organizations with their number of members')
    .option(...configOption)
    .option('--json', 'print JSON')
    .action(async (opts: { config?: string, json?: boolean }) => {
      const list = await withOrganizations(opts.config, io, async (organizations) => await organizations.list())
      io.out(opts.json === true ? JSON.stringify(list, null, 2) : formatOrganizationTable(list))
    })
  org.command('add-member')
    .description('add a user to an organization')
    .option(...configOption)
    .requiredOption('--org <slug>', 'the organization')
    .requiredOption('--email <email>', 'the user')
    .requiredOption('--role <roles>', 'organization role, or several comma separated')
    .action(async (opts: { config?: string, org: string, email: string, role: string }) => {
      const member = await withOrganizations(opts.config, io, async (organizations) => await organizations.addMember(opts.org, opts.email, opts.role))
      io.out(`added ${opts.email.trim().toLowerCase()} to ${opts.org} as ${member.role}`)
    })
  org.command('remove-member')
    .description('remove a user from an organization (never its last owner)')
    .option(...configOption)
    .requiredOption('--org <slug>', 'the organization')
    .requiredOption('--email <email>', 'the user')
    .action(async (opts: { config?: string, org: string, email: string }) => {
      await withOrganizations(opts.config, io, async (organizations) => { await organizations.removeMember(opts.org, opts.email) })
      io.out(`removed ${opts.email.trim().toLowerCase()} from ${opts.org}`)
    })
  org.command('set-role')
    .description('replace a member\'s organization roles (the last owner stays one)')
    .option(...configOption)
    .requiredOption('--org <slug>', 'the organization')
    .requiredOption('--email <email>', 'the member')
    .requiredOption('--role <roles>', 'organization role, or several comma separated')
    .action(async (opts: { config?: string, org: string, email: string, role: string }) => {
      const member = await withOrganizations(opts.config, io, async (organizations) => await organizations.setRole(opts.org, opts.email, opts.role))
      io.out(`${opts.email.trim().toLowerCase()} now has role ${member.role} in ${opts.org}`)
    })
}
