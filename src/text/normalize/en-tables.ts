/**
 * English word tables for normalization. Abbreviations are also read by the word splitter, which must know
 * that the period of "Dr." belongs to the word and does not end a sentence.
 */

function abbreviations(canEnd: boolean, pairs: readonly (readonly [string, string])[]) {
  return pairs.map(([written, say]) => [written, { say, canEnd }] as const)
}

/**
 * Abbreviation (as written, with its period) to its spoken form. `canEnd` abbreviations may close a
 * sentence ("… and so on, etc. Then"): they end one when the next word is capitalised. `Dr.` and `St.`
 * are resolved by context in en.ts (Doctor/Drive, Saint/Street).
 */
export const ABBREVIATIONS: ReadonlyMap<string, { readonly say: string; readonly canEnd: boolean }> = new Map([
  ...abbreviations(false, [
    ['Mr.', 'Mister'], ['Mrs.', 'Missus'], ['Ms.', 'Miz'], ['Dr.', 'Doctor'], ['St.', 'Saint'],
    ['Prof.', 'Professor'], ['Mt.', 'Mount'], ['Gen.', 'General'], ['Capt.', 'Captain'], ['Sgt.', 'Sergeant'],
    ['Lt.', 'Lieutenant'], ['Col.', 'Colonel'], ['Gov.', 'Governor'], ['Sen.', 'Senator'], ['Rev.', 'Reverend'],
    ['e.g.', 'for example'], ['i.e.', 'that is'], ['vs.', 'versus'], ['Vs.', 'versus'],
    ['approx.', 'approximately'],
    ['No.', 'number'], ['no.', 'number'], ['Fig.', 'Figure'], ['fig.', 'figure'], ['Dept.', 'Department'],
    ['Jan.', 'January'], ['Feb.', 'February'], ['Mar.', 'March'], ['Apr.', 'April'], ['Jun.', 'June'],
    ['Jul.', 'July'], ['Aug.', 'August'], ['Sep.', 'September'], ['Sept.', 'September'], ['Oct.', 'October'],
    ['Nov.', 'November'], ['Dec.', 'December'],
  ]),
  ...abbreviations(true, [
    ['etc.', 'et cetera'], ['Inc.', 'Incorporated'], ['Ltd.', 'Limited'], ['Co.', 'Company'],
    ['Corp.', 'Corporation'], ['Jr.', 'Junior'], ['Sr.', 'Senior'], ['Ave.', 'Avenue'], ['Rd.', 'Road'],
    ['Blvd.', 'Boulevard'], ['a.m.', 'ay em'], ['p.m.', 'pee em'], ['A.M.', 'ay em'], ['P.M.', 'pee em'],
  ]),
])

/** Abbreviations that only count as such before a number ("No. 5", but "No. I won't."). */
export const NUMBER_ABBREVIATIONS: ReadonlySet<string> = new Set(['No.', 'no.', 'Fig.', 'fig.'])

/** Written without a period but still expanded. */
export const BARE_ABBREVIATIONS: ReadonlyMap<string, string> = new Map([['vs', 'versus']])

export const MONTHS = [
  'January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November',
  'December',
] as const

/** Unit symbol to [singular, plural]. `attachedOnly` units are read only when glued to a number ("5in"). */
export const UNITS: ReadonlyMap<string, readonly [string, string]> = new Map([
  ['km', ['kilometer', 'kilometers']], ['m', ['meter', 'meters']], ['cm', ['centimeter', 'centimeters']],
  ['mm', ['millimeter', 'millimeters']], ['mi', ['mile', 'miles']], ['ft', ['foot', 'feet']],
  ['yd', ['yard', 'yards']], ['in', ['inch', 'inches']], ['kg', ['kilogram', 'kilograms']],
  ['g', ['gram', 'grams']], ['mg', ['milligram', 'milligrams']], ['lb', ['pound', 'pounds']],
  ['lbs', ['pound', 'pounds']], ['oz', ['ounce', 'ounces']], ['l', ['liter', 'liters']],
  ['L', ['liter', 'liters']],
  ['ml', ['milliliter', 'milliliters']], ['mL', ['milliliter', 'milliliters']], ['gal', ['gallon', 'gallons']],
  ['mph', ['mile per hour', 'miles per hour']], ['km/h', ['kilometer per hour', 'kilometers per hour']],
  ['kph', ['kilometer per hour', 'kilometers per hour']], ['m/s', ['meter per second', 'meters per second']],
  ['°C', ['degree Celsius', 'degrees Celsius']], ['℃', ['degree Celsius', 'degrees Celsius']],
  ['°F', ['degree Fahrenheit', 'degrees Fahrenheit']], ['℉', ['degree Fahrenheit', 'degrees Fahrenheit']],
  ['°', ['degree', 'degrees']], ['s', ['second', 'seconds']], ['sec', ['second', 'seconds']],
  ['ms', ['millisecond', 'milliseconds']], ['min', ['minute', 'minutes']], ['h', ['hour', 'hours']],
  ['hr', ['hour', 'hours']], ['hrs', ['hour', 'hours']], ['Hz', ['hertz', 'hertz']],
  ['kHz', ['kilohertz', 'kilohertz']],
  ['MHz', ['megahertz', 'megahertz']], ['GHz', ['gigahertz', 'gigahertz']], ['KB', ['kilobyte', 'kilobytes']],
  ['kB', ['kilobyte', 'kilobytes']], ['MB', ['megabyte', 'megabytes']], ['GB', ['gigabyte', 'gigabytes']],
  ['TB', ['terabyte', 'terabytes']], ['kW', ['kilowatt', 'kilowatts']], ['W', ['watt', 'watts']],
  ['kWh', ['kilowatt hour', 'kilowatt hours']], ['V', ['volt', 'volts']],
  ['mAh', ['milliamp hour', 'milliamp hours']],
  ['dB', ['decibel', 'decibels']], ['px', ['pixel', 'pixels']],
])

export const ATTACHED_ONLY_UNITS: ReadonlySet<string> = new Set(['in'])

/** Suffixes that scale a number ("5k", "$2.5bn", "3M"); lower-case `m` stays meters. */
export const SCALE_SUFFIXES: ReadonlyMap<string, string> = new Map([
  ['k', 'thousand'], ['K', 'thousand'], ['M', 'million'], ['mn', 'million'], ['B', 'billion'], ['bn', 'billion'],
  ['T', 'trillion'], ['tn', 'trillion'],
])

export const SCALE_WORDS: ReadonlySet<string> = new Set(['thousand', 'million', 'billion', 'trillion'])

/** Currency sign to [one, many, sub-unit one, sub-unit many]; an empty sub-unit reads decimals as "point". */
export const CURRENCIES: ReadonlyMap<string, readonly [string, string, string, string]> = new Map([
  ['$', ['dollar', 'dollars', 'cent', 'cents']],
  ['€', ['euro', 'euros', 'cent', 'cents']],
  ['£', ['pound', 'pounds', 'penny', 'pence']],
  ['¥', ['yen', 'yen', '', '']],
  ['₹', ['rupee', 'rupees', 'paisa', 'paise']],
])

/** Single symbols that are words of their own. */
export const SYMBOL_WORDS: ReadonlyMap<string, string> = new Map([
  ['&', 'and'], ['+', 'plus'], ['=', 'equals'], ['@', 'at'], ['%', 'percent'], ['×', 'times'], ['°', 'degrees'],
])

/** Words after which a four-digit number is read as a year even when a lower-case word follows. */
export const YEAR_CUES: ReadonlySet<string> = new Set([
  'in', 'since', 'by', 'from', 'until', 'till', 'of', 'year', 'circa', 'before', 'after', 'during', 'between',
  'to', 'and', 'or', 'early', 'late', 'mid', 'spring', 'summer', 'autumn', 'fall', 'winter', 'around', 'through',
  ...MONTHS.map((m) => m.toLowerCase()),
])

/** Lower-case words that usually follow a year used as a subject ("1999 was …"). */
export const YEAR_FOLLOWERS: ReadonlySet<string> = new Set([
  'was', 'is', 'will', 'saw', 'had', 'has', 'brought', 'marked', 'became', 'ended', 'began', 'when', 'and', 'or',
  'to', 'through', 'onward', 'onwards', 'season', 'edition', 'model', 'election', 'census', 'report',
])
