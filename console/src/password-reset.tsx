// Forgotten passwords: "Forgot password?" asks for a link by email (POST /auth/request-password-reset,
// its redirectTo this console's #/reset-password), and the link lands on ResetPassword, which sets
// the new password (POST /auth/reset-password). Both answer the same whatever the email, as the
// server does: no screen tells whether an address has an account.
import { useEffect, useRef, useState } from 'preact/hooks'
import { ApiError, accounts, publicAuth } from './api.js'
import { checkNewPassword, messageOf, policyHint, RESET_LINK_UNUSABLE, RESET_REQUESTED, type Landing, type PasswordErrors } from './account-forms.js'
import { PasswordField } from './password-field.js'

function reasonOf (err: unknown): string {
  return err instanceof ApiError ? messageOf(err.problem.code, err.message, accounts) : String(err)
}

/** The heading takes the focus as the screen opens, so a screen reader starts at its top. */
function useHeading () {
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => { heading.current?.focus() }, [])
  return heading
}

export function ForgotPassword () {
  const [sent, setSent] = useState(false)
  const [error, setError] = useState<string | undefined>()
  const [busy, setBusy] = useState(false)
  const heading = useHeading()
  const submit = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault()
    const email = String(new FormData(event.currentTarget as HTMLFormElement).get('email'))
    setBusy(true)
    setError(undefined)
    setSent(false)
    try {
      await publicAuth('request-password-reset', { email, redirectTo: `${location.pathname}#/reset-password` })
      setSent(true)
    } catch (err) {
      setError(reasonOf(err))
    } finally {
      setBusy(false)
    }
  }
  return (
    <main class="sign-in">
      <h1 tabIndex={-1} ref={heading}>Forgot your password?</h1>
      {!accounts.passwordReset
        ? <p>This server does not reset passwords by email: ask an administrator for a new one.</p>
        : <form onSubmit={(event) => { void submit(event) }}>
          <p class="hint">Type your account's email: a link to set a new password will be sent to it.</p>
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autocomplete="username" required />
          <button type="submit" disabled={busy}>Send the link</button>
          <p role="status">{sent ? RESET_REQUESTED : ''}</p>
          {error !== undefined && <p class="error" role="alert">{error}</p>}
        </form>}
      <p><a href="#/">Back to sign in</a></p>
    </main>
  )
}

/** Where a reset link lands: the new password twice, checked against the policy before it goes. */
export function ResetPassword ({ landing, onDone }: { readonly landing: Landing, readonly onDone: () => void }) {
  const [errors, setErrors] = useState<PasswordErrors>({})
  const [failure, setFailure] = useState<string | undefined>(landing.kind === 'token' ? undefined : RESET_LINK_UNUSABLE)
  const [busy, setBusy] = useState(false)
  const heading = useHeading()
  const first = useRef<HTMLInputElement>(null)
  const repeat = useRef<HTMLInputElement>(null)
  const submit = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault()
    if (landing.kind !== 'token') return
    const form = new FormData(event.currentTarget as HTMLFormElement)
    const newPassword = String(form.get('new-password'))
    const found = checkNewPassword(accounts, newPassword, String(form.get('repeat-password')))
    setErrors(found)
    setFailure(undefined)
    if (found.newPassword !== undefined) { first.current?.focus(); return }
    if (found.repeat !== undefined) { repeat.current?.focus(); return }
    setBusy(true)
    try {
      await publicAuth('reset-password', { newPassword, token: landing.token })
      onDone()
    } catch (err) {
      const code = err instanceof ApiError ? err.problem.code : undefined
      if (code === 'PASSWORD_TOO_SHORT' || code === 'PASSWORD_TOO_LONG') {
        setErrors({ newPassword: reasonOf(err) })
        first.current?.focus()
      } else {
        setFailure(reasonOf(err))
      }
    } finally {
      setBusy(false)
    }
  }
  return (
    <main class="sign-in">
      <h1 tabIndex={-1} ref={heading}>Set a new password</h1>
      {landing.kind === 'token' && (
        <form onSubmit={(event) => { void submit(event) }} noValidate>
          <PasswordField id="new-password" label="New password" autocomplete="new-password" hint={policyHint(accounts)} error={errors.newPassword} inputRef={first} />
          <PasswordField id="repeat-password" label="New password again" autocomplete="new-password" error={errors.repeat} inputRef={repeat} />
          <button type="submit" disabled={busy}>Set the password</button>
        </form>
      )}
      {failure !== undefined && <p class="error" role="alert">{failure}</p>}
      <p>{failure !== undefined && accounts.passwordReset && <><a href="#/forgot-password">Ask for a new link</a> · </>}<a href="#/">Back to sign in</a></p>
    </main>
  )
}
