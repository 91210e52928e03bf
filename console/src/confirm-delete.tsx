// The question a delete for good asks first: a resource without soft delete has no Undo. The
// focus starts on Cancel, the choice that loses nothing.
import { useEffect, useRef } from 'preact/hooks'

export interface ConfirmDeleteProps {
  readonly title: string
  readonly busy: boolean
  readonly onConfirm: () => void
  readonly onCancel: () => void
}

export function ConfirmDelete ({ title, busy, onConfirm, onCancel }: ConfirmDeleteProps) {
  const cancel = useRef<HTMLButtonElement>(null)
  useEffect(() => { cancel.current?.focus() }, [])
  return (
    <div class="confirm" role="alert">
      <p>Delete {title} for good? It cannot be restored.</p>
      <button type="button" class="danger" disabled={busy} onClick={onConfirm}>Delete for good</button>
      <button type="button" ref={cancel} onClick={onCancel}>Cancel</button>
    </div>
  )
}
