// A password input with its label, a hint (the policy) and its error, both tied to it by
// aria-describedby, as a record form's fields are.
import type { Ref } from 'preact'

export interface PasswordFieldProps {
  readonly id: string
  readonly label: string
  readonly autocomplete: 'current-password' | 'new-password'
  readonly hint?: string | undefined
  readonly error?: string | undefined
  readonly inputRef?: Ref<HTMLInputElement> | undefined
}

export function PasswordField ({ id, label, autocomplete, hint, error, inputRef }: PasswordFieldProps) {
  const described = [error === undefined ? undefined : `${id}-error`, hint === undefined ? undefined : `${id}-hint`].filter((part) => part !== undefined).join(' ')
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} name={id} type="password" autocomplete={autocomplete} required ref={inputRef}
        aria-invalid={error === undefined ? undefined : 'true'} aria-describedby={described === '' ? undefined : described} />
      {hint !== undefined && <span class="hint" id={`${id}-hint`}>{hint}</span>}
      {error !== undefined && <span class="field-error" id={`${id}-error`}>{error}</span>}
    </div>
  )
}
