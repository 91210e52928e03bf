// The console in an organization (docs/console.md, "Organizations"): the header's picker names the
// active organization and switches to another of the session's; staff across tenants also have
// "All organizations", no active organization, where they see every organization's records. A
// member with organizations and none active is asked to choose one.
import { useEffect, useRef, useState } from 'preact/hooks'
import type { Organization } from './api.js'

export interface Organizations {
  /** The session's organizations. */
  readonly list: readonly Organization[]
  /** The active organization's id; null for none. */
  readonly active: string | null
  /** Staff across tenants (/api/meta's `allTenants`): no active organization shows them all. */
  readonly allTenants: boolean
}

/** Makes an organization (null: none) the active one and reads the console again for it. */
export type Switch = (organizationId: string | null) => Promise<void>

export const CHOOSE_MESSAGE = 'Choose an organization to see its records.'

interface Choice { readonly id: string | null, readonly name: string }

function choicesOf (organizations: Organizations): Choice[] {
  return [...organizations.allTenants ? [{ id: null, name: 'All organizations' }] : [], ...organizations.list]
}

export function activeName (organizations: Organizations): string {
  const active = organizations.list.find((organization) => organization.id === organizations.active)
  return active?.name ?? (organizations.allTenants ? 'All organizations' : 'No organization')
}

/** None active, some to choose from, and nothing to see without one (staff see everything). */
export function mustChoose (organizations: Organizations): boolean {
  return organizations.active === null && !organizations.allTenants && organizations.list.length > 0
}

/** A switch with its failure kept to show, and a status line saying where it went. */
function useSwitch (organizations: Organizations, onSwitch: Switch) {
  const [error, setError] = useState<string | undefined>()
  const [switched, setSwitched] = useState(false)
  const busy = useRef(false)
  const choose = async (id: string | null): Promise<boolean> => {
    if (busy.current || id === organizations.active) return false
    busy.current = true
    setError(undefined)
    try {
      await onSwitch(id)
      setSwitched(true)
      return true
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err))
      return false
    } finally {
      busy.current = false
    }
  }
  return { choose, error, status: switched ? `Switched to ${activeName(organizations)}.` : '' }
}

function Choices ({ id, organizations, hidden, onChoose }: { readonly id: string, readonly organizations: Organizations, readonly hidden?: boolean, readonly onChoose: (id: string | null) => void }) {
  return (
    <ul id={id} class="org-choices" aria-label="Organizations" hidden={hidden}>
      {choicesOf(organizations).map((choice) => (
        <li key={choice.id ?? ''}>
          <button type="button" aria-current={choice.id === organizations.active ? 'true' : undefined} onClick={() => { onChoose(choice.id) }}>{choice.name}</button>
        </li>
      ))}
    </ul>
  )
}

/** The header's picker: a button naming the active organization that opens the choices. */
export function OrganizationPicker ({ organizations, onSwitch }: { readonly organizations: Organizations, readonly onSwitch: Switch }) {
  const [open, setOpen] = useState(false)
  const { choose, error, status } = useSwitch(organizations, onSwitch)
  const box = useRef<HTMLDivElement>(null)
  const toggle = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    if (!open) return
    const outside = (event: Event): void => { if (!(box.current?.contains(event.target as Node) ?? false)) setOpen(false) }
    document.addEventListener('pointerdown', outside)
    return () => { document.removeEventListener('pointerdown', outside) }
  }, [open])
  const close = (): void => {
    setOpen(false)
    toggle.current?.focus()
  }
  if (choicesOf(organizations).length === 0) return <p class="org-picker">Organization: {activeName(organizations)}</p>
  return (
    <div class="org-picker" ref={box} onKeyDown={(event) => { if (event.key === 'Escape' && open) close() }}>
      <button type="button" class="org-toggle" ref={toggle} aria-expanded={open} aria-controls="org-choices" onClick={() => { setOpen(!open) }}>
        <span class="org-label">Organization: </span><strong>{activeName(organizations)}</strong>
      </button>
      <Choices id="org-choices" organizations={organizations} hidden={!open} onChoose={(id) => { close(); void choose(id) }} />
      <span class="visually-hidden" role="status">{status}</span>
      {error !== undefined && !open && <p class="org-error" role="alert">{error}</p>}
    </div>
  )
}

/** The home screen of a member with organizations and none active. */
export function ChooseOrganization ({ organizations, onSwitch }: { readonly organizations: Organizations, readonly onSwitch: Switch }) {
  const { choose, error } = useSwitch(organizations, onSwitch)
  const chosen = async (id: string | null): Promise<void> => {
    if (await choose(id)) document.getElementById('content')?.focus()
  }
  return (
    <>
      <h1>Choose an organization</h1>
      <p>{CHOOSE_MESSAGE}</p>
      <Choices id="org-prompt" organizations={organizations} onChoose={(id) => { void chosen(id) }} />
      {error !== undefined && <p class="error" role="alert">{error}</p>}
    </>
  )
}
