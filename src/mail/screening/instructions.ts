import { withoutInvisible } from './invisible.js';

/**
 * Text addressed to an AI model rather than to a person: told to drop its instructions, to show
 * its prompt, or spoken to as a model. One list per language of the extracted-text fixtures
 * (English, German, French, Spanish, Italian, Dutch, Portuguese), matched on lower-case text
 * without accents, so "instruções" is "instrucoes". Each phrase needs the words that make it an
 * order to a model ("previous instructions", "your prompt"): a newsletter about AI that talks
 * of prompts, or "you are now subscribed", says none of them.
 */
export const INSTRUCTION_PATTERNS: Readonly<Record<string, readonly RegExp[]>> = {
  en: [
    /\b(ignore|disregard|forget|override)\b.{0,25}\b(previous|prior|above|earlier|preceding|original|system|your)\b.{0,25}\b(instructions?|prompts?|directives?)\b/,
    /\b(reveal|print|show|output|repeat|display|leak)\b.{0,20}\byour (system |initial |hidden )?(prompt|instructions)\b/,
    /\bif you are an? (ai|a\.i\.|llm|language model|large language model|ai assistant|ai agent)\b/,
    /\b(note|message|attention|instructions?) (to|for) (the |any |an )?(ai|llm|language model|ai assistant|ai agent|chatbot)\b/,
    /\b(new|updated) instructions\s*:/,
    /\bdo not (tell|inform|alert|notify|mention (this )?to) the (user|human|owner|recipient)\b/,
  ],
  de: [
    /\b(ignorier\w*|vergiss|vergessen sie|missacht\w*|uberschreib\w*)\b.{0,30}\b(vorherig\w*|bisherig\w*|vorig\w*|obig\w*|alle|deine|ihre|urspr\w*)\b.{0,25}\b(anweisung\w*|instruktion\w*|befehl\w*)\b/,
    /\b(zeig\w*|verrat\w*|gib|nenn\w*)\b.{0,20}\b(dein\w*|ihr\w*|den)\b.{0,10}\b(system-?prompt|prompt)\b/,
    /\b(wenn|falls) (du|sie) (ein|eine) (ki|k\.i\.|sprachmodell|ki-assistent\w*|ki-agent\w*|llm)\b/,
    /\bneue anweisungen\s*:/,
    /\b(sag|sage|informier\w*) (es )?(dem|der) (nutzer|benutzer|empfanger)\w* nichts\b/,
  ],
  fr: [
    /\b(ignore\w*|oublie\w*|neglige\w*)\b.{0,30}(\b(precedent\w*|anterieur\w*|toutes|tes|vos)\b.{0,25}\b(instructions?|consignes?|directives?)\b|\b(instructions?|consignes?|directives?) (precedent|anterieur)\w*)/,
    /\b(revele\w*|affiche\w*|montre\w*|donne\w*)\b.{0,20}\b(ton|votre|le)\b.{0,10}\b(prompt|invite)( systeme)?\b/,
    /\bsi (tu es|vous etes) (une? )?(ia|i\.a\.|intelligence artificielle|modele de langage|assistant ia|agent ia|llm)\b/,
    /\bnouvelles (instructions|consignes)\s*:/,
  ],
  es: [
    /\b(ignora\w*|olvida\w*|omite\w*|descarta\w*)\b.{0,30}(\b(anterior\w*|previa\w*|todas|tus|sus)\b.{0,25}\b(instrucciones|indicaciones|directrices)\b|\b(instrucciones|indicaciones|directrices) (anterior|previa)\w*)/,
    /\b(revela\w*|muestra\w*|ensena\w*|dime)\b.{0,20}\b(tu|su|el)\b.{0,10}\b(prompt|mensaje)( del sistema| de sistema)?\b/,
    /\bsi (eres|usted es) (una? )?(ia|i\.a\.|inteligencia artificial|modelo de lenguaje|asistente de ia|agente de ia|llm)\b/,
    /\bnuevas instrucciones\s*:/,
  ],
  it: [
    /\b(ignora\w*|dimentica\w*|trascura\w*)\b.{0,30}(\b(precedent\w*|tutte|le tue|le sue)\b.{0,25}\b(istruzioni|indicazioni|direttive)\b|\b(istruzioni|indicazioni|direttive) precedent\w*)/,
    /\b(rivela\w*|mostra\w*|dimmi)\b.{0,20}\b(il tuo|il suo|il)\b.{0,10}\b(prompt)( di sistema)?\b/,
    /\bse (sei|lei e) (un|una|un') ?(ia|i\.a\.|intelligenza artificiale|modello linguistico|assistente ia|agente ia|llm)\b/,
    /\bnuove istruzioni\s*:/,
  ],
  nl: [
    /\b(negeer\w*|vergeet|veronachtzaam)\b.{0,30}\b(eerder\w*|vorig\w*|voorgaand\w*|alle|je|jouw|uw)\b.{0,25}\b(instructies|opdrachten|aanwijzingen)\b/,
    /\b(toon|onthul|geef|laat)\b.{0,20}\b(je|jouw|uw|de)\b.{0,10}\b(systeemprompt|prompt)\b/,
    /\bals (je|jij|u) een (ai|a\.i\.|taalmodel|ai-assistent|ai-agent|llm) (bent|is)\b/,
    /\bnieuwe instructies\s*:/,
  ],
  pt: [
    /\b(ignor[ae]\w*|esqueca\w*|esquece\w*|desconsider[ae]\w*)\b.{0,30}(\b(anterior\w*|previa\w*|todas|suas|tuas)\b.{0,25}\b(instrucoes|orientacoes|diretrizes)\b|\b(instrucoes|orientacoes|diretrizes) (anterior|previa)\w*)/,
    /\b(revel[ae]\w*|mostr[ae]\w*|diga)\b.{0,20}\b(seu|teu|o)\b.{0,10}\b(prompt)( do sistema| de sistema)?\b/,
    /\bse (voce|tu) (e|es|for) (uma? )?(ia|i\.a\.|inteligencia artificial|modelo de linguagem|assistente de ia|agente de ia|llm)\b/,
    /\bnovas instrucoes\s*:/,
  ],
};

/**
 * Per language, words one of which every phrase above holds: text without any of them cannot
 * match, and is passed over in one scan instead of one per phrase (the phrases cost ~60 µs a KB
 * of text, most of the main thread's screening of a message). A phrase added above must have
 * one of its words here; test/mail/screening.test.ts says each phrase once and checks it is found.
 */
const CUES: Record<string, RegExp> = {
  en: /instruction|prompt|directive|\b(?:ai|llm)\b|a\.i\.|language model|chatbot|\bthe (?:user|human|owner|recipient)\b/,
  de: /anweisung|instruktion|befehl|prompt|\b(?:ki|llm)\b|k\.i\.|sprachmodell|nichts/,
  fr: /instruction|consigne|directive|prompt|invite|\b(?:ia|llm)\b|i\.a\.|intelligence artificielle|modele de langage/,
  es: /instrucciones|indicaciones|directrices|prompt|mensaje|\b(?:ia|llm)\b|i\.a\.|inteligencia artificial|modelo de lenguaje/,
  it: /istruzioni|indicazioni|direttive|prompt|\b(?:ia|llm)\b|i\.a\.|intelligenza artificiale|modello linguistico/,
  nl: /instructies|opdrachten|aanwijzingen|prompt|\b(?:ai|llm)\b|a\.i\.|taalmodel/,
  pt: /instrucoes|orientacoes|diretrizes|prompt|\b(?:ia|llm)\b|i\.a\.|inteligencia artificial|modelo de linguagem/,
};

/** Any language's words: most mail holds none, and is then scanned once. */
const ANY_CUE = new RegExp(
  Object.values(CUES)
    .map((cue) => cue.source)
    .join('|'),
);

export const INSTRUCTION_LANGUAGES = Object.keys(INSTRUCTION_PATTERNS);

/**
 * "Don't forget your instructions", "n'oubliez pas vos consignes", "vergeet je instructies niet":
 * the first phrase of each language (ignore or forget the instructions) said with a negation
 * around it is a reminder to a person.
 */
const NEGATION =
  /(?<!\p{L})(no|not|don't|dont|never|nicht|nie|kein\p{L}*|ne|n'|pas|non|nao|niet|nooit|nunca|mai)(?!\p{L})/u;

function isOrder(plain: string, match: RegExpExecArray): boolean {
  const around = plain.slice(Math.max(0, match.index - 12), match.index + match[0].length + 8);
  return !NEGATION.test(around.replace(match[0], ' '));
}

function says(plain: string, lang: string): boolean {
  if (!CUES[lang]!.test(plain)) return false;
  return INSTRUCTION_PATTERNS[lang]!.some((pattern, i) => {
    if (i > 0) return pattern.test(plain);
    const global = new RegExp(pattern.source, 'g');
    for (let m = global.exec(plain); m; m = global.exec(plain)) if (isOrder(plain, m)) return true;
    return false;
  });
}

/** Lower case, no accents, no invisible characters, one space between words. */
function normalise(text: string): string {
  return withoutInvisible(text)
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/\s{2,}|[^\S ]/g, ' ');
}

/** The languages in which `text` holds words addressed to an AI model (empty when none). */
export function instructionLanguages(text: string): string[] {
  const plain = normalise(text);
  if (!ANY_CUE.test(plain)) return [];
  return INSTRUCTION_LANGUAGES.filter((lang) => says(plain, lang));
}
