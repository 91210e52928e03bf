// The caller's own account (#/account, from the header's link with their name): their name, a new
// password (POST /auth/change-password, the current one required, other sessions signed out on
// request) and their sessions (sessions.tsx). Everything here goes through the session cookie.
import { useRef, useState } from 'preact/hooks'
import { ApiError, accounts, type Session } from './api.js'
import { checkNewPassword, messageOf, policyHint, type PasswordErrors } from './account-forms.js'
import { PasswordField } from './password-field.js'
import { Sessions } from './sessions.js'

export function Account ({ session, onUserChange }: { readonly session: Session, readonly onUserChange: () => void }) {
  // Bumped when a password change signs out the other sessions, so their list is read again.
  const [sessionsRead, setSessionsRead] = useState(0)
  return (
    <div class="account">
      <h1>Your account</h1>
      <p>Signed in as <strong>{session.user?.email}</strong>.</p>
      <NameForm session={session} onUserChange={onUserChange} />
      <PasswordForm session={session} onOthersSignedOut={() => { setSessionsRead(sessionsRead + 1) }} />
      <Sessions key={sessionsRead} session={session} />
    </div>
  )
}

function reasonOf (err: unknown): string {
  return err instanceof ApiError ? messageOf(err.problem.code, err.message, accounts) : String(err)
}

function NameForm ({ session, onUserChange }: { readonly session: Session, readonly onUserChange: () => void }) {
  const [status, setStatus] = useState('')
  const [error, setError] = useState<string | undefined>()
  const [busy, setBusy] = useState(false)
  const submit = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault()
    const name = String(new FormData(event.currentTarget as HTMLFormElement).get('name')).trim()
    setBusy(true)
    setStatus('')
    setError(undefined)
    try {
      await session.updateName(name)
      setStatus('Your name is saved.')
      onUserChange()
    } catch (err) {
      setError(reasonOf(err))
    } finally {
      setBusy(false)
    }
  }
  return (
    <section aria-labelledby="name-heading">
      <h2 id="name-heading">Name</h2>
      <form class="account-form" onSubmit={(event) => { void submit(event) }}>
        <div class="field">
          <label for="account-name">Name</label>
          <input id="account-name" name="name" type="text" autocomplete="name" maxLength={200} required defaultValue={session.user?.name ?? ''}
            aria-invalid={error === undefined ? undefined : 'true'} aria-describedby={error === undefined ? undefined : 'account-name-error'} />
          {error !== undefined && <span class="field-error" id="account-name-error">{error}</span>}
        </div>
        <button type="submit" disabled={busy}>Save the name</button>
        <p role="status">{status}</p>
      </form>
    </section>
  )
}

function PasswordForm ({ session, onOthersSignedOut }: { readonly session: Session, readonly onOthersSignedOut: () => void }) {
  const [errors, setErrors] = useState<PasswordErrors & { current?: string }>({})
  const [failure, setFailure] = useState<string | undefined>()
  const [status, setStatus] = useState('')
  const [busy, setBusy] = useState(false)
  const current = useRef<HTMLInputElement>(null)
  const first = useRef<HTMLInputElement>(null)
  const repeat = useRef<HTMLInputElement>(null)
  const submit = async (event: SubmitEvent): Promise<void> => {
    event.preventDefault()
    const formElement = event.currentTarget as HTMLFormElement
    const form = new FormData(formElement)
    const currentPassword = String(form.get('current-password'))
    const newPassword = String(form.get('new-password'))
    const signOutOthers = form.get('sign-out-others') !== null
    const found: PasswordErrors & { current?: string } = { ...currentPassword === '' ? { current: 'Type your current password.' } : {}, ...checkNewPassword(accounts, newPassword, String(form.get('repeat-password'))) }
    setErrors(found)
    setFailure(undefined)
    setStatus('')
    const invalid = found.current !== undefined ? current : found.newPassword !== undefined ? first : found.repeat !== undefined ? repeat : undefined
    if (invalid !== undefined) { invalid.current?.focus(); return }
    setBusy(true)
    try {
      await session.changePassword(currentPassword, newPassword, signOutOthers)
      formElement.reset()
      setStatus(signOutOthers ? 'Your password is changed, and your other sessions are signed out.' : 'Your password is changed.')
      if (signOutOthers) onOthersSignedOut()
    } catch (err) {
      const code = err instanceof ApiError ? err.problem.code : undefined
      if (code === 'INVALID_PASSWORD') { setErrors({ current: reasonOf(err) }); current.current?.focus() }
      else if (code === 'PASSWORD_TOO_SHORT' || code === 'PASSWORD_TOO_LONG') { setErrors({ newPassword: reasonOf(err) }); first.current?.focus() }
      else setFailure(reasonOf(err))
    } finally {
      setBusy(false)
    }
  }
  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <form class="account-form" onSubmit={(event) => { void submit(event) }} noValidate>
        <PasswordField id="current-password" label="Current password" autocomplete="current-password" error={errors.current} inputRef={current} />
        <PasswordField id="new-password" label="New password" autocomplete="new-password" hint={policyHint(accounts)} error={errors.newPassword} inputRef={first} />
        <PasswordField id="repeat-password" label="New password again" autocomplete="new-password" error={errors.repeat} inputRef={repeat} />
        <div class="field field-check">
          <input id="sign-out-others" name="sign-out-others" type="checkbox" />
          <label for="sign-out-others">Sign out my other sessions</label>
        </div>
        <button type="submit" disabled={busy}>Change the password</button>
        <p role="status">{status}</p>
        {failure !== undefined && <p class="error" role="alert">{failure}</p>}
      </form>
    </section>
  )
}
