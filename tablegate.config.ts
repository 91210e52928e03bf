// `npm start` and `npx tablegate <command>` in this repository discover this file: the example shop.
export { default } from './examples/shop/tablegate.config.js'
