// The shell: signed out, the sign-in form; signed in, the caller's menu beside the open resource
// or page. /api/meta is read on sign-in and again whenever an answer's X-Meta-Version changes.
// With organizations on, the header's picker switches the active organization, and the menu and
// the open screen are read again for it. Forgotten passwords and the links a mail brings (a reset,
// a verification) have screens of their own, signed in or not; the header's link with the user's
// name opens their account.
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks'
import { Session, type SessionInfo } from './api.js'
import { labelOf, menuOf, type Meta } from './meta.js'
import { useRoute } from './history.js'
import { hrefOf, type Route } from './route.js'
import { SignIn } from './sign-in.js'
import { ListScreen } from './list-screen.js'
import { Page } from './page.js'
import { ViewChart } from './chart.js'
import { Board } from './board.js'
import { RecordScreen } from './record.js'
import { NewRecord } from './record-new.js'
import { Account } from './account.js'
import { ForgotPassword, ResetPassword } from './password-reset.js'
import { landingOf, type Landing } from './account-forms.js'
import { CHOOSE_MESSAGE, ChooseOrganization, mustChoose, OrganizationPicker, type Organizations, type Switch } from './organizations.js'

/** The menu entry a screen belongs to: a resource's list, its records and forms fall under the resource. */
function menuHrefOf (route: Route): string {
  return route.kind === 'record' || route.kind === 'new' || route.kind === 'resource' ? hrefOf({ kind: 'resource', name: route.name, query: new URLSearchParams() }) : hrefOf(route)
}

interface SignedIn {
  readonly kind: 'signed-in'
  readonly meta: Meta
  /** Undefined where the server has no organizations. */
  readonly organizations: Organizations | undefined
}

type State = { readonly kind: 'starting' } | { readonly kind: 'signed-out' } | SignedIn | { readonly kind: 'failed', readonly message: string }

/**
 * The caller's meta and organizations. A member of exactly one organization with none active is
 * put in it: without one they would see none of its records. Staff across tenants are left in
 * none, where they see every organization's.
 */
async function signedIn (session: Session, started: SessionInfo): Promise<SignedIn> {
  if (!started.organizations) return { kind: 'signed-in', meta: await session.meta(), organizations: undefined }
  const [meta, list] = await Promise.all([session.meta(), session.organizations()])
  const allTenants = meta.allTenants === true
  const only = list.length === 1 ? list[0] : undefined
  if (started.activeOrganizationId === null && !allTenants && only !== undefined) {
    await session.switchOrganization(only.id)
    return { kind: 'signed-in', meta: await session.meta(), organizations: { list, active: only.id, allTenants } }
  }
  return { kind: 'signed-in', meta, organizations: { list, active: started.activeOrganizationId, allTenants } }
}

/**
 * Where a mail's link landed (its token or refusal in the URL's query, before the hash), taken out
 * of the address bar at once: the token is kept in memory only, off the tab's history.
 */
function takeLanding (): Landing {
  const landing = landingOf(location.search)
  if (landing.kind !== 'none') history.replaceState(history.state, '', `${location.pathname}${location.hash}`)
  return landing
}

function verifiedNotice (landing: Landing): string {
  return landing.kind === 'error' ? 'This verification link has expired or has been used already: sign in to have a new one sent.' : 'Your email is verified: sign in.'
}

export function App () {
  const session = useMemo(() => new Session(), [])
  const [state, setState] = useState<State>({ kind: 'starting' })
  const [landing] = useState(takeLanding)
  const [notice, setNotice] = useState<string | undefined>()
  // The header names the user: a change of name on the account page shows at once.
  const [, setUserChanges] = useState(0)
  const route = useRoute()
  const load = useCallback(async () => {
    try {
      const started = await session.start()
      setState(started === undefined ? { kind: 'signed-out' } : await signedIn(session, started))
    } catch (err) {
      setState({ kind: 'failed', message: err instanceof Error ? err.message : String(err) })
    }
  }, [session])
  useEffect(() => {
    session.onMetaChange = () => { void load() }
    session.onSignedOut = () => { setState({ kind: 'signed-out' }) }
    void load()
  }, [session, load])

  if (route.kind === 'forgot-password') return <ForgotPassword />
  if (route.kind === 'reset-password') {
    // A reset ends every session, this browser's too: it signs in again with the new password.
    return <ResetPassword landing={landing} onDone={() => {
      setNotice('Your new password is set: sign in with it.')
      location.hash = '#/'
      void load()
    }} />
  }
  if (state.kind === 'starting') return <p>Loading the console…</p>
  if (state.kind === 'failed') return <p class="error" role="alert">{state.message}</p>
  if (state.kind === 'signed-out') {
    return <SignIn session={session} notice={route.kind === 'verified' ? verifiedNotice(landing) : notice} onSignedIn={() => {
      setNotice(undefined)
      if (route.kind === 'verified') location.hash = '#/'
      void load()
    }} />
  }
  const signOut = async (): Promise<void> => {
    await session.signOut()
    setState({ kind: 'signed-out' })
  }
  // A refused switch (the membership ended meanwhile) reads the session again, then says why.
  const switchTo: Switch = async (organizationId) => {
    try {
      await session.switchOrganization(organizationId)
      setState(await signedIn(session, { organizations: true, activeOrganizationId: organizationId }))
    } catch (err) {
      void load()
      throw err
    }
  }
  const { organizations } = state
  return (
    <div class="shell">
      <header>
        {/* The hash is the console's route: the skip link moves the focus and leaves the hash as it is. */}
        <a class="skip" href="#content" onClick={(event) => {
          event.preventDefault()
          document.getElementById('content')?.focus()
        }}>Skip to content</a>
        <span class="brand">tablegate</span>
        {organizations !== undefined && <OrganizationPicker organizations={organizations} onSwitch={switchTo} />}
        <a class="account-link" href={hrefOf({ kind: 'account' })} aria-current={route.kind === 'account' ? 'page' : undefined}>
          <span class="visually-hidden">Your account: </span>{session.user?.name || session.user?.email}
        </a>
        <button type="button" onClick={() => { void signOut() }}>Sign out</button>
      </header>
      <nav class="menu" aria-label="Main">
        <ul>{menuOf(state.meta).map((entry) => <li key={entry.href}><a href={entry.href} aria-current={menuHrefOf(route) === entry.href ? 'page' : undefined}>{entry.label}</a></li>)}</ul>
      </nav>
      <main id="content" tabIndex={-1}>
        {organizations !== undefined && mustChoose(organizations) && route.kind !== 'home' && <p class="notice">{CHOOSE_MESSAGE}</p>}
        {/* Another organization is another set of records: the screen starts again and reads its own. */}
        {route.kind === 'account'
          ? <Account session={session} onUserChange={() => { setUserChanges((changes) => changes + 1) }} />
          : <Screen key={organizations?.active ?? ''} session={session} meta={state.meta} route={route} organizations={organizations} onSwitch={switchTo} />}
      </main>
    </div>
  )
}

interface ScreenProps {
  readonly session: Session
  readonly meta: Meta
  readonly route: Route
  readonly organizations: Organizations | undefined
  readonly onSwitch: Switch
}

function Screen ({ session, meta, route, organizations, onSwitch }: ScreenProps) {
  if (route.kind === 'resource' && route.name in meta.resources) {
    const reorder = meta.views?.[route.name]?.reorder
    if (reorder === undefined) return <ListScreen session={session} meta={meta} resource={route.name} query={route.query} />
    const caption = labelOf(route.name)
    return (
      <>
        <h1>{caption}</h1>
        {meta.permissions?.[route.name]?.create === true && <p><a class="new" href={hrefOf({ kind: 'new', name: route.name })}>New record</a></p>}
        <ViewChart session={session} meta={meta} resource={route.name} />
        <Board session={session} meta={meta} resource={route.name} field={reorder} caption={caption} />
      </>
    )
  }
  if (route.kind === 'record' && route.name in meta.resources) return <RecordScreen session={session} meta={meta} resource={route.name} recordKey={route.key} />
  if (route.kind === 'new' && meta.permissions?.[route.name]?.create === true) return <NewRecord session={session} meta={meta} resource={route.name} />
  const page = route.kind === 'page' ? meta.pages?.find((candidate) => candidate.name === route.name) : undefined
  if (page !== undefined) return <Page session={session} meta={meta} page={page} />
  if (route.kind === 'verified') return <p role="status">Your email is verified.</p>
  if (route.kind !== 'home') return <p role="alert">There is nothing here for you.</p>
  if (organizations !== undefined && mustChoose(organizations)) return <ChooseOrganization organizations={organizations} onSwitch={onSwitch} />
  const outside = organizations !== undefined && organizations.list.length === 0 && !organizations.allTenants
  return (
    <>
      <h1>Welcome</h1>
      {outside && <p>You belong to no organization yet, so no organization's records are shown.</p>}
      <p>Choose an entry of the menu.</p>
    </>
  )
}
