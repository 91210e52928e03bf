// The shell: signed out, the sign-in form; signed in, the caller's menu beside the open resource
// or page. /api/meta is read on sign-in and again whenever an answer's X-Meta-Version changes.
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks'
import { Session } from './api.js'
import { labelOf, menuOf, type Meta } from './meta.js'
import { hrefOf, useRoute, type Route } from './route.js'
import { SignIn } from './sign-in.js'
import { ListScreen } from './list-screen.js'
import { Page } from './page.js'
import { ViewChart } from './chart.js'
import { Board } from './board.js'
import { RecordScreen } from './record.js'
import { NewRecord } from './record-new.js'

/** The menu entry a screen belongs to: a resource's list, its records and forms fall under the resource. */
function menuHrefOf (route: Route): string {
  return route.kind === 'record' || route.kind === 'new' || route.kind === 'resource' ? hrefOf({ kind: 'resource', name: route.name, query: new URLSearchParams() }) : hrefOf(route)
}

type State = { readonly kind: 'starting' } | { readonly kind: 'signed-out' } | { readonly kind: 'signed-in', readonly meta: Meta } | { readonly kind: 'failed', readonly message: string }

export function App () {
  const session = useMemo(() => new Session(), [])
  const [state, setState] = useState<State>({ kind: 'starting' })
  const route = useRoute()
  const load = useCallback(async () => {
    try {
      if (!await session.start()) return setState({ kind: 'signed-out' })
      setState({ kind: 'signed-in', meta: await session.meta() })
    } catch (err) {
      setState({ kind: 'failed', message: err instanceof Error ? err.message : String(err) })
    }
  }, [session])
  useEffect(() => {
    session.onMetaChange = () => { void load() }
    session.onSignedOut = () => { setState({ kind: 'signed-out' }) }
    void load()
  }, [session, load])

  if (state.kind === 'starting') return <p>Loading the console…</p>
  if (state.kind === 'failed') return <p class="error" role="alert">{state.message}</p>
  if (state.kind === 'signed-out') return <SignIn session={session} onSignedIn={() => { void load() }} />
  const signOut = async (): Promise<void> => {
    await session.signOut()
    setState({ kind: 'signed-out' })
  }
  return (
    <div class="shell">
      <header>
        {/* The hash is the console's route: the skip link moves the focus and leaves the hash as it is. */}
        <a class="skip" href="#content" onClick={(event) => {
          event.preventDefault()
          document.getElementById('content')?.focus()
        }}>Skip to content</a>
        <span class="brand">tablegate</span>
        <button type="button" onClick={() => { void signOut() }}>Sign out</button>
      </header>
      <nav class="menu" aria-label="Main">
        <ul>{menuOf(state.meta).map((entry) => <li key={entry.href}><a href={entry.href} aria-current={menuHrefOf(route) === entry.href ? 'page' : undefined}>{entry.label}</a></li>)}</ul>
      </nav>
      <main id="content" tabIndex={-1}><Screen session={session} meta={state.meta} route={route} /></main>
    </div>
  )
}

function Screen ({ session, meta, route }: { readonly session: Session, readonly meta: Meta, readonly route: Route }) {
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
  if (route.kind !== 'home') return <p role="alert">There is nothing here for you.</p>
  return <><h1>Welcome</h1><p>Choose an entry of the menu.</p></>
}
