// The rule lives where the dashboard can import it too (decision BR10); the server keeps its name.
export { contrastWithWhite, MIN_CONTRAST } from '../../dashboard/src/shared/contrast.js';
