// GET {apiRoot}/auth/sign-in: a small page that signs a person in (POST /sign-in/email, which sets
// the session cookie) and returns to the interactive docs, so /api/docs opens in a plain browser
// (docs/meta.md, "The docs in a browser"). Nothing of the request is echoed into the page.
import type { FastifyInstance } from 'fastify'

export interface SignInFormOptions {
  readonly apiRoot: string
}

function page (apiRoot: string): string {
  const signIn = JSON.stringify(`${apiRoot}/auth/sign-in/email`)
  const docs = JSON.stringify(`${apiRoot}/docs`)
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in</title>
<style>
body { font: 16px system-ui, sans-serif; display: grid; place-items: center; min-height: 90vh; margin: 0; }
form { display: grid; gap: .75rem; width: min(22rem, 90vw); }
input, button { font: inherit; padding: .5rem; }
#error { color: #b00020; min-height: 1.5em; margin: 0; }
</style>
</head>
<body>
<form id="sign-in">
<h1>Sign in</h1>
<label>Email <input name="email" type="email" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
<p id="error" role="alert"></p>
</form>
<script>
document.getElementById('sign-in').addEventListener('submit', async (event) => {
  event.preventDefault()
  const form = new FormData(event.target)
  const error = document.getElementById('error')
  error.textContent = ''
  const response = await fetch(${signIn}, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: form.get('email'), password: form.get('password') }),
  })
  if (response.ok) return location.assign(${docs})
  const problem = await response.json().catch(() => ({}))
  error.textContent = problem.detail || 'Sign-in failed.'
})
</script>
</body>
</html>
`
}

export async function signInForm (app: FastifyInstance, options: SignInFormOptions): Promise<void> {
  const html = page(options.apiRoot)
  app.get('/sign-in', { config: { public: true } }, async (_request, reply) => {
    return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(html)
  })
}
