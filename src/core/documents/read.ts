import { DocumentTooLargeError, DocumentUnreadableError } from './errors';
import { pdfText } from './pdf-text';

/** What a document is read as: a PDF (its pages and text layer), or plain text (Markdown, code, CSV…). */
export type DocumentKind = 'pdf' | 'text';

export interface DocumentCaps {
  maxBytes: number;
  maxPages: number;
  /** Text kept of a document (its extracted text, for PDFs). */
  maxCharacters: number;
}

export interface ReadDocument {
  kind: DocumentKind;
  name: string;
  /** Pages of a PDF. */
  pages?: number;
  /** The text (a PDF's text layer; empty for a scanned PDF without one). */
  text: string;
}

/** Text formats by their file name's extension (what people send: notes, Markdown, data, code, configuration, logs). */
const TEXT_EXTENSIONS = new Set(
  (
    'txt text md markdown rst org adoc tex csv tsv json jsonl ndjson yaml yml toml ini cfg conf env properties xml html htm ' +
    'css scss less svg log diff patch sql graphql gql proto js mjs cjs jsx ts tsx mts cts vue svelte py pyi rb go rs java kt kts ' +
    'scala groovy gradle c h cc cpp cxx hpp hh m mm cs fs vb swift dart php pl pm r jl lua sh bash zsh fish ps1 bat cmd ' +
    'dockerfile makefile cmake mk ex exs erl hrl hs ml elm clj cljs lisp scm nim zig sol tf hcl ipynb'
  ).split(' '),
);
const TEXT_MIME =
  /^(text\/|application\/(json|ld\+json|xml|x-yaml|yaml|toml|javascript|x-javascript|typescript|x-sh|x-python|sql|csv|x-ndjson))/i;

function extensionOf(name: string): string {
  const base = name.toLowerCase().split('/').pop() ?? '';
  if (base === 'dockerfile' || base === 'makefile') return base;
  const dot = base.lastIndexOf('.');
  return dot >= 0 ? base.slice(dot + 1) : '';
}

/** The kind of a document by its type and name; undefined for anything that is neither a PDF nor text. */
export function documentKind(name: string | undefined, mime: string | undefined): DocumentKind | undefined {
  const ext = extensionOf(name ?? '');
  if (mime === 'application/pdf' || ext === 'pdf') return 'pdf';
  if ((mime && TEXT_MIME.test(mime)) || TEXT_EXTENSIONS.has(ext)) return 'text';
  return undefined;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** UTF-8 text without NUL characters (a binary file with a text-like name is not text). @throws DocumentUnreadableError */
function decodeText(data: Buffer): string {
  let text: string;
  try {
    text = UTF8.decode(data);
  } catch {
    throw new DocumentUnreadableError('binary', 'not UTF-8 text');
  }
  if (text.includes('\u0000')) throw new DocumentUnreadableError('binary', 'NUL characters');
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
}

/**
 * Reads a document the user sent, within the caps: a PDF through its text layer (refused past `maxPages` pages),
 * text as UTF-8. A text over `maxCharacters` is refused rather than cut, so an answer never rests on half a document
 * without saying so. @throws DocumentTooLargeError, DocumentUnreadableError
 */
export async function readDocument(file: { name: string; mime?: string; data: Buffer }, caps: DocumentCaps): Promise<ReadDocument> {
  const kind = documentKind(file.name, file.mime);
  if (!kind) throw new DocumentUnreadableError('type', file.mime ?? file.name);
  if (file.data.length > caps.maxBytes) throw new DocumentTooLargeError('bytes', caps.maxBytes, file.data.length);
  if (kind === 'pdf') {
    if (file.data.subarray(0, 1024).indexOf('%PDF-') < 0) throw new DocumentUnreadableError('damaged', 'no PDF header');
    const { pages, text } = await pdfText(file.data, caps.maxPages);
    if (text.length > caps.maxCharacters) throw new DocumentTooLargeError('characters', caps.maxCharacters, text.length);
    return { kind, name: file.name, pages, text };
  }
  const text = decodeText(file.data).trim();
  if (text === '') throw new DocumentUnreadableError('empty');
  if (text.length > caps.maxCharacters) throw new DocumentTooLargeError('characters', caps.maxCharacters, text.length);
  return { kind, name: file.name, text };
}
