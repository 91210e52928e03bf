import { render } from 'preact'
import { App } from './app.js'

// The page's "Loading the console…" goes: a first screen of another shape (a reset link's) would
// be drawn beside it rather than in its place.
const root = document.getElementById('app')!
root.replaceChildren()
render(<App />, root)
