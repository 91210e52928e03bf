// The sign-in form: the login routes' email and password, with the server's message on failure.
import { useState } from 'preact/hooks'
import type { Session } from './api.js'

export function SignIn ({ session, onSignedIn }: { readonly session: Session, readonly onSignedIn: () => void }) {
  const [error, setError] = useState<string | undefined>()
  const [busy, setBusy] = useState(false)
  const submit = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault()
    const form = new FormData(event.currentTarget as HTMLFormElement)
    setBusy(true)
    setError(undefined)
    try {
      await session.signIn(String(form.get('email')), String(form.get('password')))
      onSignedIn()
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err))
    } finally {
      setBusy(false)
    }
  }
  return (
    <main class="sign-in">
      <h1>Sign in</h1>
      <form onSubmit={(event) => { void submit(event) }} aria-describedby={error === undefined ? undefined : 'sign-in-error'}>
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit" disabled={busy}>Sign in</button>
        {error !== undefined && <p id="sign-in-error" class="error" role="alert">{error}</p>}
      </form>
    </main>
  )
}
