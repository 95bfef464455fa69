// A scripted promptfoo provider: it answers "What is x + y?" from the test's vars, wrong
// (the sum plus one) on the fixed list of items in its config, and it throws on the items
// listed under `errors`, so that promptfoo records a provider error for them. Nothing is
// sent anywhere.
//
//   providers:
//     - id: file://provider.js
//       label: system-a
//       config: {wrong: [1, 4], errors: [6], wrong_by_prompt: {terse: [2]}}
//
// `wrong_by_prompt` adds wrong items for the prompt with that label.
class FixtureProvider {
  constructor(options) {
    this.config = (options && options.config) || {};
    this.providerId = (options && options.id) || 'fixture';
  }

  id() {
    return this.providerId;
  }

  async callApi(prompt, context) {
    const vars = context.vars;
    const item = Number(vars.item);
    if ((this.config.errors || []).includes(item)) {
      throw new Error(`scripted provider failure on item ${item}`);
    }
    const label = context.prompt && context.prompt.label;
    const byPrompt = (this.config.wrong_by_prompt || {})[label] || [];
    const wrong = (this.config.wrong || []).includes(item) || byPrompt.includes(item);
    const total = Number(vars.x) + Number(vars.y) + (wrong ? 1 : 0);
    return { output: String(total) };
  }
}

module.exports = FixtureProvider;
