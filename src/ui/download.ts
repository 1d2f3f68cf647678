/** Saves bytes or text as a file download (only the main thread can trigger one). */
export function download(name: string, content: BlobPart, type = 'application/octet-stream'): void {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
