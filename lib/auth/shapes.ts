// Response shapes of the login routes, following better-auth 1.7 so its browser client works
// against tablegate unchanged.
import type { UserRow } from './users.js'

export interface AuthUser {
  id: string
  email: string
  name: string
  image: null
  emailVerified: boolean
  createdAt: string
  updatedAt: string
  role: string
  banned: boolean
  banReason: null
  banExpires: null
}

export function authUser (user: UserRow): AuthUser {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    image: null,
    emailVerified: user.email_verified,
    createdAt: user.created_at.toISOString(),
    updatedAt: user.updated_at.toISOString(),
    role: user.role,
    banned: user.banned,
    banReason: null,
    banExpires: null,
  }
}
