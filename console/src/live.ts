// A screen's hold on the change feed (change-feed.ts): open while the screen shows the question,
// closed when it leaves or asks another. The screen reads what it shows once the feed has started
// (so no change falls between the read and the feed), and again whenever the feed starts anew.
import { useEffect, useRef, useState } from 'preact/hooks'
import type { Session } from './api.js'
import type { Change } from './change.js'
import { followChanges, type FeedQuery } from './change-feed.js'

export interface Live {
  /**
   * Counts the reads the screen owes: undefined while the feed has not yet started (the screen
   * waits), one more each time the feed starts from now. Without a feed, 0 at once. A feed that
   * cannot open does not hold the screen back: its first failure counts as a start.
   */
  readonly round: number | undefined
  /** Why the feed ended for good, where it did. */
  readonly stopped: string | undefined
}

const NOT_LIVE: Live = { round: 0, stopped: undefined }
const WAITING: Live = { round: undefined, stopped: undefined }

/** Follows `resource`'s changes under `query` (undefined: no feed), telling each to `onChange`. */
export function useChanges (session: Session, resource: string, query: FeedQuery | undefined, onChange: (change: Change) => void): Live {
  const question = query === undefined ? undefined : JSON.stringify([resource, query.filter ?? '', query.fields ?? ''])
  const [state, setState] = useState<{ readonly question: string, readonly live: Live } | undefined>()
  // The screen's handler as of its last render, without opening the stream again for each render.
  const handler = useRef(onChange)
  handler.current = onChange
  useEffect(() => {
    if (question === undefined || query === undefined) return
    let round = 0
    let stopped: string | undefined
    const publish = (): void => { setState({ question, live: { round, stopped } }) }
    return followChanges(session, resource, query, {
      start: () => { round++; publish() },
      change: (change) => { handler.current(change) },
      interrupted: () => { if (round === 0) { round = 1; publish() } },
      stop: (why) => { round = Math.max(round, 1); stopped = why; publish() },
    })
  }, [session, question])
  if (question === undefined) return NOT_LIVE
  return state?.question === question ? state.live : WAITING
}
