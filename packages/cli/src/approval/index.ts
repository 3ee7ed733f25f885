export {
  type PromptDecision,
  type PromptRequest,
} from "./types.js";
export {
  type Choice,
  amendmentEffect,
  amendmentRuleLine,
  choicesFor,
  displayArgv,
  isOffered,
  renderHeader,
  renderMenu,
} from "./render.js";
export {
  type TerminalPromptOptions,
  canPrompt,
  createTerminalPrompt,
} from "./terminal.js";
