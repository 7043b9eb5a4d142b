/** How the composer's bar names the provider in force (RunSettings). Pure. */
/**
 * The provider as the composer's narrow bar names it: a custom endpoint by its host and port (what
 * tells two endpoints apart), a preset by its label without the parenthesis ("Ollama (local)" →
 * "Ollama"); the full label and URL are the element's title.
 */
export function composerProviderLabel(label: string, provider: string, baseUrl: string): string {
  if (provider === 'custom') {
    try {
      return new URL(baseUrl).host || label;
    } catch {
      return label;
    }
  }
  return label.replace(/\s*\([^)]*\)\s*$/, '') || label;
}
