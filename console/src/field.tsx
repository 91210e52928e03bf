// One field of a form: its label, the input its type calls for, and its error (the form's own check
// or the server's), tied to the input by aria-describedby so a screen reader reads it there.
import type { ComponentChildren } from 'preact'
import { labelOf, type FieldMeta } from './meta.js'
import { isCheckbox, type Input } from './field-values.js'

export interface FieldInputProps {
  readonly name: string
  readonly field: FieldMeta
  readonly input: Input
  readonly error?: string | undefined
  /** `unreadable`: the browser holds text it cannot read as a number (its value is then empty). */
  readonly onInput: (input: Input, unreadable?: boolean) => void
  /** More of the field after its input (a reference's picker), and the id of what describes it. */
  readonly children?: ComponentChildren
  readonly describedBy?: string | undefined
}

export function FieldInput ({ name, field, input, error, onInput, children, describedBy }: FieldInputProps) {
  const id = `field-${name}`
  const errorId = `${id}-error`
  const hintId = `${id}-hint`
  const hint = field.type === 'timestamp' ? 'In UTC.' : field.type === 'json' ? 'JSON.' : undefined
  const described = [error === undefined ? undefined : errorId, hint === undefined ? undefined : hintId, describedBy].filter((part) => part !== undefined).join(' ')
  const common = {
    id,
    name,
    // A required boolean needs a value, not a tick: `required` on a checkbox would demand true.
    required: field.required === true && !isCheckbox(field),
    'aria-invalid': error === undefined ? undefined : 'true' as const,
    'aria-describedby': described === '' ? undefined : described,
  }
  const text = typeof input === 'string' ? input : ''
  const change = (event: Event): void => {
    const control = event.currentTarget as HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement
    onInput(control.value, control.validity.badInput)
  }
  let control
  if (isCheckbox(field)) {
    control = <input {...common} type="checkbox" checked={input === true} onChange={(event) => { onInput((event.currentTarget as HTMLInputElement).checked) }} />
  } else if (field.enum !== undefined || field.type === 'boolean') {
    const options = field.enum ?? ['true', 'false']
    control = (
      <select {...common} value={text} onChange={change}>
        {(field.nullable === true || text === '') && <option value="">{field.nullable === true ? '(none)' : 'Choose…'}</option>}
        {options.map((option) => <option key={option} value={option}>{field.type === 'boolean' ? (option === 'true' ? 'Yes' : 'No') : option}</option>)}
      </select>
    )
  } else if (isLong(field)) {
    control = <textarea {...common} rows={field.type === 'json' ? 5 : 3} maxLength={field.maxLength} value={text} onInput={change} spellcheck={field.type !== 'json'} />
  } else {
    control = <input {...common} {...typed(field)} value={text} onInput={change} />
  }
  return (
    <div class={isCheckbox(field) ? 'field field-check' : 'field'}>
      <label for={id}>{labelOf(name)}{field.required === true && <span aria-hidden="true"> *</span>}</label>
      {control}
      {hint !== undefined && <span class="hint" id={hintId}>{hint}</span>}
      {error !== undefined && <span class="field-error" id={errorId}>{error}</span>}
      {children}
    </div>
  )
}

/** Text without a short limit (a PostgreSQL `text`, most often) gets a textarea; JSON too. */
function isLong (field: FieldMeta): boolean {
  return field.type === 'json' || field.type === 'text' || (field.type === 'string' && (field.maxLength === undefined || field.maxLength > 200))
}

/** The attributes of an `<input>` for the field's type. */
function typed (field: FieldMeta): Record<string, string | number | undefined> {
  switch (field.type) {
    case 'integer': case 'number':
      return { type: 'number', step: field.type === 'integer' ? 1 : 'any', min: field.minimum, max: field.maximum }
    // Kept as text: a number input would hand the value over as a float.
    case 'decimal': return { type: 'text', inputMode: 'decimal', autocomplete: 'off' }
    case 'bigint': return { type: 'text', inputMode: 'numeric', autocomplete: 'off' }
    case 'date': return { type: 'date' }
    case 'timestamp': return { type: 'datetime-local', step: 1 }
    default: return { type: 'text', maxLength: field.maxLength, minLength: field.minLength }
  }
}
