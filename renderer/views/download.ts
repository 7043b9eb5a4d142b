/** Saves text or a Blob as a file through the browser's download mechanism (a temporary object URL). DOM-only. */
export function download(fileName: string, content: string | Blob, type = 'application/x-ndjson'): void {
  const url = URL.createObjectURL(typeof content === 'string' ? new Blob([content], { type }) : content);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
