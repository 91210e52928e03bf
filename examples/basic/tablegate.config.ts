// The example app served by `npm start`: roles only for now; resources arrive with the resource API.
import { defineConfig } from 'tablegate'

export default defineConfig({
  roles: ['admin', 'manager', 'user'],
  defaultRole: 'user',
})
