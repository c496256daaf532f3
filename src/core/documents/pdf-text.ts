import { DocumentUnreadableError, DocumentTooLargeError } from './errors';

/** The text layer of a PDF, page by page, and how many pages it has. */
export interface PdfText {
  pages: number;
  text: string;
}

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: Promise<PdfJs> | undefined;

/** pdf.js (Mozilla's PDF reader, its build for Node) loads on the first PDF: it is large and most processes never read one. */
function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  return pdfjs;
}

/**
 * Reads the text of a PDF with pdf.js: no fonts, no scripts, no rendering, only the text items of each page (a line
 * break where the PDF ends a line, a blank line between pages). A PDF with more than `maxPages` pages is refused
 * before any page is read. @throws DocumentTooLargeError, DocumentUnreadableError (damaged, encrypted, not a PDF)
 */
export async function pdfText(data: Buffer, maxPages: number): Promise<PdfText> {
  const { getDocument } = await loadPdfJs();
  const task = getDocument({
    data: new Uint8Array(data),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    verbosity: 0,
  });
  let doc;
  try {
    doc = await task.promise;
  } catch (err) {
    await task.destroy();
    // pdf.js names a password-protected file PasswordException; anything else it cannot open is damaged for us.
    const name = err instanceof Error ? err.name : 'unknown';
    throw new DocumentUnreadableError(name === 'PasswordException' ? 'encrypted' : 'damaged', name);
  }
  try {
    if (doc.numPages > maxPages) throw new DocumentTooLargeError('pages', maxPages, doc.numPages);
    const pages: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      pages.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''));
      page.cleanup();
    }
    return {
      pages: doc.numPages,
      text: pages
        .map((p) => p.trim())
        .join('\n\n')
        .trim(),
    };
  } catch (err) {
    if (err instanceof DocumentTooLargeError) throw err;
    throw new DocumentUnreadableError('damaged', err instanceof Error ? err.name : 'unknown');
  } finally {
    await doc.destroy();
  }
}
