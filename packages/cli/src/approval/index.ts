export {
  type PromptDecision,
  type PromptRequest,
} from "./types.js";
export {
  ANSI,
  type Choice,
  PLAIN,
  type Style,
  amendmentChoicesOf,
  amendmentEffect,
  amendmentRuleLine,
  choicesFor,
  displayArgv,
  interactiveSessionNote,
  isOffered,
  proposedChoiceIndex,
  reasonText,
  renderAmendConfirm,
  renderHeader,
  renderMenu,
  renderPrefixChoices,
} from "./render.js";
export {
  PROMPT_PREAMBLE,
  type PromptInput,
  type PromptOutput,
  type PromptScreen,
  type TerminalPromptOptions,
  canPrompt,
  createTerminalPrompt,
} from "./terminal.js";
