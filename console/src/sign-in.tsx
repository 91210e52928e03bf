// The sign-in form: the login routes' email and password, with the server's message on failure.
// A user who signed up and has not followed their verification link yet is told so, and may have
// the link sent again; with password reset on, "Forgot password?" leads to asking for a link.
import { useState } from 'preact/hooks'
import { ApiError, accounts, publicAuth, type Session } from './api.js'
import { messageOf, NOT_VERIFIED, VERIFICATION_SENT } from './account-forms.js'

export interface SignInProps {
  readonly session: Session
  readonly onSignedIn: () => void
  /** What the screen opens with: a password just set, a verification link just followed. */
  readonly notice?: string | undefined
}

export function SignIn ({ session, onSignedIn, notice }: SignInProps) {
  const [error, setError] = useState<string | undefined>()
  /** The email that is not verified yet, while the notice stands. */
  const [unverified, setUnverified] = useState<string | undefined>()
  const [busy, setBusy] = useState(false)
  const submit = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault()
    const form = new FormData(event.currentTarget as HTMLFormElement)
    const email = String(form.get('email'))
    setBusy(true)
    setError(undefined)
    setUnverified(undefined)
    try {
      await session.signIn(email, String(form.get('password')))
      onSignedIn()
    } catch (err) {
      if (err instanceof ApiError && err.problem.code === 'EMAIL_NOT_VERIFIED') setUnverified(email)
      else setError(err instanceof ApiError ? messageOf(err.problem.code, err.message, accounts) : String(err))
    } finally {
      setBusy(false)
    }
  }
  return (
    <main class="sign-in">
      <h1>Sign in</h1>
      {notice !== undefined && <p class="notice" role="status">{notice}</p>}
      <form onSubmit={(event) => { void submit(event) }} aria-describedby={error === undefined ? undefined : 'sign-in-error'}>
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit" disabled={busy}>Sign in</button>
        {error !== undefined && <p id="sign-in-error" class="error" role="alert">{error}</p>}
      </form>
      {unverified !== undefined && <VerificationNotice email={unverified} />}
      {accounts.passwordReset && <p><a href="#/forgot-password">Forgot password?</a></p>}
    </main>
  )
}

/** Sign-in refused for an unverified email: says so, and sends the link again on request. */
function VerificationNotice ({ email }: { readonly email: string }) {
  const [status, setStatus] = useState('')
  const [error, setError] = useState<string | undefined>()
  const [busy, setBusy] = useState(false)
  const resend = async (): Promise<void> => {
    setBusy(true)
    setStatus('')
    setError(undefined)
    try {
      await publicAuth('send-verification-email', { email, callbackURL: `${location.pathname}#/verified` })
      setStatus(VERIFICATION_SENT)
    } catch (err) {
      setError(err instanceof ApiError ? messageOf(err.problem.code, err.message, accounts) : String(err))
    } finally {
      setBusy(false)
    }
  }
  return (
    <div class="unverified">
      <p role="alert">{NOT_VERIFIED}</p>
      {accounts.emailVerification && <button type="button" disabled={busy} onClick={() => { void resend() }}>Send the verification email again</button>}
      <p role="status">{status}</p>
      {error !== undefined && <p class="error" role="alert">{error}</p>}
    </div>
  )
}
