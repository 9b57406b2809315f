import MarkdownIt from 'markdown-it';

// HTML in the source is escaped, not passed through; only links and emphasis render.
const md = new MarkdownIt('zero', { html: false, linkify: false }).enable(['link', 'emphasis', 'text']);

const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx]!.attrSet('target', '_blank');
  tokens[idx]!.attrSet('rel', 'noopener noreferrer');
  return defaultLinkOpen(tokens, idx, options, env, self);
};

/**
 * A checkbox label such as "I accept the [terms](https://…)" as safe inline HTML. markdown-it
 * escapes everything else and refuses javascript:, vbscript: and data: link targets.
 */
export function renderInlineMarkdown(text: string): string {
  return md.renderInline(text);
}
