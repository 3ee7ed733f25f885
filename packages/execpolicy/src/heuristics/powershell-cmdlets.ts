/**
 * The read-only cmdlets a PowerShell command may be known-safe as, with every parameter of each (so
 * that an abbreviation is resolved as PowerShell resolves it) and which of those cannot write, run
 * anything or reach the network. A name or parameter missing here is never known-safe: the design is
 * an allowlist, so Set-Content, New-Item, Invoke-WebRequest and every other cmdlet are refused
 * without being listed. Where-Object is not listed: its usual form runs a script block (which a plain
 * split never passes here) and its short form has dozens of operator switches. Get-Command is not
 * either: looking a name up can import a module, which runs the module's code.
 */

/** One parameter: its name and aliases (lower case), and whether it takes a value. */
export interface CmdletParameter {
  names: readonly string[];
  value: boolean;
  /** A real parameter of the cmdlet that is not accepted (it can write, run code or reach another machine). */
  refused?: boolean;
  /** Its value (or a positional argument) is a path. */
  path?: boolean;
}

export interface Cmdlet {
  name: string;
  /**
   * Its aliases (`powershell-aliases.ts`) that only Windows defines; elsewhere the name is a native
   * program (`ls` is /usr/bin/ls). Its other aliases are defined on every platform.
   */
  windowsAliases?: readonly string[];
  parameters: readonly CmdletParameter[];
  /** Positional arguments may be paths (so a network path is refused). */
  paths: boolean;
}

const sw = (...names: string[]): CmdletParameter => ({ names, value: false });
const val = (...names: string[]): CmdletParameter => ({ names, value: true });
const pathVal = (...names: string[]): CmdletParameter => ({ names, value: true, path: true });
const refused = (value: boolean, ...names: string[]): CmdletParameter => ({ names, value, refused: true });

/**
 * The common parameters every advanced cmdlet has. The `-*Variable` ones assign session variables:
 * harmless, but nothing a read needs, so refused rather than reasoned about.
 */
export const COMMON_PARAMETERS: readonly CmdletParameter[] = [
  sw("verbose", "vb"), sw("debug", "db"),
  val("erroraction", "ea"), val("warningaction", "wa"), val("informationaction", "infa"), val("progressaction", "proga"),
  val("outbuffer", "ob"),
  refused(true, "errorvariable", "ev"), refused(true, "warningvariable", "wv"), refused(true, "informationvariable", "iv"),
  refused(true, "outvariable", "ov"), refused(true, "pipelinevariable", "pv"),
];

const LOCATION = [pathVal("path"), pathVal("literalpath", "pspath", "lp")];
const FILTERS = [val("filter"), val("include"), val("exclude")];
// A credential makes a provider connect as someone else.
const CREDENTIAL = refused(true, "credential");

export const CMDLETS: readonly Cmdlet[] = [
  {
    name: "get-childitem",
    windowsAliases: ["ls"],
    paths: true,
    parameters: [
      ...LOCATION, ...FILTERS, sw("recurse", "s"), val("depth"), sw("force"), sw("name"), val("attributes"),
      sw("followsymlink"), sw("directory", "ad", "d"), sw("file", "af"), sw("hidden", "ah", "h"), sw("readonly", "ar"),
      sw("system", "as"),
    ],
  },
  {
    name: "get-content",
    windowsAliases: ["cat"],
    paths: true,
    // `-Stream` reads an alternate data stream; it writes nothing. `-Wait` never returns.
    parameters: [
      ...LOCATION, ...FILTERS, val("readcount"), val("totalcount", "first", "head"), val("tail", "last"), sw("force"),
      val("delimiter"), sw("raw"), val("encoding"), sw("asbytestream"), val("stream"), CREDENTIAL, refused(false, "wait"),
    ],
  },
  {
    name: "select-string",
    paths: true,
    parameters: [
      ...LOCATION, val("inputobject"), val("pattern"), sw("simplematch"), sw("casesensitive"), sw("quiet"), sw("list"),
      sw("noemphasis"), val("include"), val("exclude"), sw("notmatch"), sw("allmatches"), val("encoding"), val("context"),
      sw("raw"), val("culture"),
    ],
  },
  {
    name: "measure-object",
    paths: false,
    parameters: [
      val("inputobject"), val("property"), sw("standarddeviation"), sw("sum"), sw("allstats"), sw("average"), sw("maximum"),
      sw("minimum"), sw("line"), sw("word"), sw("character"), sw("ignorewhitespace"),
    ],
  },
  {
    name: "select-object",
    paths: false,
    parameters: [
      val("inputobject"), val("property"), val("excludeproperty"), val("expandproperty"), sw("unique"), sw("caseinsensitive"),
      val("last"), val("first"), val("skip"), val("skiplast"), sw("wait"), val("index"), val("skipindex"),
    ],
  },
  {
    name: "sort-object",
    windowsAliases: ["sort"],
    paths: false,
    parameters: [
      val("property"), sw("descending"), sw("unique"), val("inputobject"), val("culture"), sw("casesensitive"), sw("stable"),
      val("top"), val("bottom"),
    ],
  },
  {
    name: "get-item",
    paths: true,
    parameters: [...LOCATION, ...FILTERS, sw("force"), val("stream"), CREDENTIAL],
  },
  {
    name: "get-location",
    paths: false,
    parameters: [val("psprovider"), val("psdrive"), sw("stack"), val("stackname")],
  },
  {
    name: "test-path",
    paths: true,
    parameters: [
      ...LOCATION, ...FILTERS, val("pathtype", "type"), sw("isvalid"), val("olderthan"), val("newerthan"), CREDENTIAL,
    ],
  },
  {
    name: "resolve-path",
    paths: true,
    parameters: [...LOCATION, sw("relative"), pathVal("relativebasepath"), CREDENTIAL],
  },
  {
    name: "write-output",
    windowsAliases: ["write"],
    paths: false,
    parameters: [val("inputobject"), sw("noenumerate")],
  },
  {
    name: "format-table",
    paths: false,
    parameters: [
      val("property"), sw("autosize"), sw("repeatheader"), sw("hidetableheaders"), sw("wrap"), val("groupby"), val("view"),
      sw("showerror"), sw("displayerror"), sw("force"), val("expand"), val("inputobject"),
    ],
  },
  {
    name: "format-list",
    paths: false,
    parameters: [
      val("property"), val("groupby"), val("view"), sw("showerror"), sw("displayerror"), sw("force"), val("expand"),
      val("inputobject"),
    ],
  },
  {
    name: "out-string",
    paths: false,
    parameters: [sw("stream"), sw("nonewline"), val("width"), val("inputobject")],
  },
];
