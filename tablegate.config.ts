// `npm start` and `npx tablegate <command>` in this repository discover this file: the example app.
export { default } from './examples/basic/tablegate.config.js'
