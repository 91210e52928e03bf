// A status line for what just happened ("Saved", "Deleted" with Undo), or what failed. Both live
// regions are always in the page, so a screen reader announces each message as it arrives.
import { useEffect, useRef } from 'preact/hooks'

export interface ToastMessage {
  readonly text: string
  readonly action?: { readonly label: string, readonly run: () => void } | undefined
  /** Move focus to the action: the control the user pressed is gone (Delete → Undo). */
  readonly focusAction?: boolean
  /** A failure: announced at once (role=alert) rather than politely. */
  readonly error?: boolean
}

let pending: ToastMessage | undefined

/** A message for the screen opened next to show (a create opens the new record's screen). */
export function flash (message: ToastMessage): void {
  pending = message
}

/** The message left for this screen, once. */
export function takeFlash (): ToastMessage | undefined {
  const message = pending
  pending = undefined
  return message
}

export function Toast ({ message }: { readonly message: ToastMessage | undefined }) {
  const action = useRef<HTMLButtonElement>(null)
  useEffect(() => { if (message?.focusAction === true) action.current?.focus() }, [message])
  const error = message?.error === true
  return (
    <>
      <div class="toast" role="status" aria-live="polite">
        {message !== undefined && !error && <>
          <span>{message.text}</span>
          {message.action !== undefined && <button type="button" ref={action} onClick={message.action.run}>{message.action.label}</button>}
        </>}
      </div>
      <div class="toast error" role="alert">{error && <span>{message.text}</span>}</div>
    </>
  )
}
