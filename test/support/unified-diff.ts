/**
 * Turns a unified diff into exact-string edits (what a coding agent sends to `edit_file`): for each
 * hunk, `oldText` = context + removed lines, `newText` = context + added lines.
 */
export interface TextEdit {
  readonly oldText: string;
  readonly newText: string;
}

export function editsFromUnifiedDiff(diff: string): TextEdit[] {
  const edits: TextEdit[] = [];
  let oldLines: string[] | undefined;
  let newLines: string[] = [];
  const close = () => {
    if (oldLines) edits.push({ oldText: oldLines.join('\n'), newText: newLines.join('\n') });
    oldLines = undefined;
    newLines = [];
  };
  for (const line of diff.split('\n')) {
    if (line.startsWith('@@')) {
      close();
      oldLines = [];
      continue;
    }
    if (!oldLines || line.startsWith('---') || line.startsWith('+++')) continue;
    if (line.startsWith('\\')) continue;
    const body = line.slice(1);
    if (line.startsWith(' ') || line === '') {
      oldLines.push(body);
      newLines.push(body);
    } else if (line.startsWith('-')) oldLines.push(body);
    else if (line.startsWith('+')) newLines.push(body);
  }
  close();
  // A trailing empty context line comes from the diff's final newline, not from the file.
  return edits.map((e) => ({ oldText: e.oldText.replace(/\n$/, ''), newText: e.newText.replace(/\n$/, '') }));
}
