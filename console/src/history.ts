// Following the hash as the tab's history moves it: the route shown (useRoute) and a form's hold on
// those moves (holdHistory). The hash's own format is route.ts's.
import { useEffect, useState } from 'preact/hooks'
import { parseRoute, type Route } from './route.js'

// The browser's Back and Forward change the hash before any page code hears of it, so a screen
// with unsaved changes cannot refuse them; it can only undo them. Each history entry the console
// has shown carries its place in the tab's history (`consoleIndex` in history.state), so a held
// move knows how far it went and goes back as far (`history.go(-delta)`). A new entry is the
// console's own navigation (after a save, say), which is never held. A screen holds moves with
// holdHistory, and lets one through with the delta it was given.
interface Held { readonly to: string, readonly delta: number }
let holder: ((held: Held) => void) | undefined

/** Holds every move through the tab's history (Back, Forward) until the returned function is called. */
export function holdHistory (onHeld: (held: Held) => void): () => void {
  holder = onHeld
  return () => { if (holder === onHeld) holder = undefined }
}

function indexOfEntry (): number | undefined {
  const index = (history.state as { consoleIndex?: unknown } | null)?.consoleIndex
  return typeof index === 'number' ? index : undefined
}

function markEntry (index: number): number {
  history.replaceState({ ...(history.state as object | null), consoleIndex: index }, '')
  return index
}

export function useRoute (): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash))
  useEffect(() => {
    let current = indexOfEntry() ?? markEntry(0)
    // Set while a held change is undone: the entry shown still is the one it returns to, so the
    // hash change that brings it back is not routed.
    let returning = false
    const changed = (): void => {
      const index = indexOfEntry()
      if (returning) {
        returning = false
        if (index === current) return
      }
      if (holder !== undefined && index !== undefined && index !== current) {
        returning = true
        holder({ to: location.hash, delta: index - current })
        history.go(current - index)
        return
      }
      current = index ?? markEntry(current + 1)
      setRoute(parseRoute(location.hash))
    }
    addEventListener('hashchange', changed)
    return () => { removeEventListener('hashchange', changed) }
  }, [])
  return route
}
