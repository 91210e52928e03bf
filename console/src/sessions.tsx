// The caller's sessions on the account page (GET /auth/list-sessions): each other one can be
// signed out (POST /auth/revoke-session, by the id list-sessions gives as `token`), or all of them
// at once (POST /auth/revoke-other-sessions). This browser's own session ends with "Sign out".
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, accounts, type Session } from './api.js'
import { messageOf, sessionRows, type SessionRow } from './account-forms.js'

export function Sessions ({ session }: { readonly session: Session }) {
  const [rows, setRows] = useState<SessionRow[] | undefined>()
  const [status, setStatus] = useState('')
  const [error, setError] = useState<string | undefined>()
  const heading = useRef<HTMLHeadingElement>(null)
  const read = async (): Promise<void> => {
    setRows(sessionRows(await session.ownSessions(), session.sessionId))
  }
  useEffect(() => { read().catch((err: unknown) => { setError(String(err instanceof Error ? err.message : err)) }) }, [session])
  // The button pressed goes with its row: the focus moves to the section's heading.
  const run = async (action: () => Promise<void>, done: string): Promise<void> => {
    setStatus('')
    setError(undefined)
    try {
      await action()
      await read()
      setStatus(done)
    } catch (err) {
      setError(err instanceof ApiError ? messageOf(err.problem.code, err.message, accounts) : String(err))
    }
    heading.current?.focus()
  }
  const others = rows?.filter((row) => !row.current) ?? []
  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading" tabIndex={-1} ref={heading}>Sessions</h2>
      {rows === undefined && error === undefined && <p>Loading your sessions…</p>}
      {rows !== undefined && (
        <div class="table-scroll">
          <table class="sessions">
            <caption>Where you are signed in</caption>
            <thead><tr><th scope="col">Device</th><th scope="col">Address</th><th scope="col">Signed in</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.id} data-session={row.id}>
                  <td>{row.device}</td>
                  <td>{row.address}</td>
                  <td>{row.signedIn}</td>
                  <td>{row.current
                    ? <strong>This session</strong>
                    : <button type="button" onClick={() => { void run(async () => { await session.endSession(row.id) }, `Signed out ${row.device}, signed in ${row.signedIn}.`) }}>
                      Sign out<span class="visually-hidden"> {row.device}, signed in {row.signedIn}</span>
                    </button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {others.length > 0 && <p><button type="button" onClick={() => { void run(async () => { await session.endOtherSessions() }, 'Every other session is signed out.') }}>Sign out all other sessions</button></p>}
      <p role="status">{status}</p>
      {error !== undefined && <p class="error" role="alert">{error}</p>}
    </section>
  )
}
