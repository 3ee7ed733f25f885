import { Script } from "node:vm";
import { describe, expect, it } from "vitest";
import { blankRedundantNames } from "../../scripts/blank-names.mjs";

// The helper esbuild's `keepNames` emits (as in dist/bundle/*.cjs), and a program using every form
// of `__name` call it writes: the pass must remove the redundant ones and change no name.
const HELPER = 'var __defProp=Object.defineProperty;var __name=(target,value)=>__defProp(target,"name",{value,configurable:!0});';
const FORMS = [
  // removed: the language names these anyway
  'let a=__name(()=>1,"a");',
  'var b;b=__name(function(){},"b");',
  'const o={c:__name(()=>2,"c"),"d":__name(function(){},"d")};',
  'class K{e=__name(()=>3,"e");static f=__name(()=>4,"f")}const k=new K;',
  'function g(){}__name(g,"g");',
  'function h(){}0,__name(h,"h"),0;',
  'var init=()=>{__name(hoisted,"hoisted")};function hoisted(){}init();',
  'class C1{static{__name(this,"C1")}}',
  'let C2;C2=class extends Error{static{__name(this,"C2")}};',
  'function ret(){function _(){}return __name(_,"_"),_}const r=ret();',
  // kept: renames, and values that are used
  'function fail2(){}__name(fail2,"fail");',
  'let run9=__name(v=>v,"run");',
  'const T=class _T{static{__name(this,"T")}};',
  'const p={parse:__name(function _parse2(){},"_parse")};',
  'const used=__name(()=>5,"other");',
  'function last(){}const seq=(0,__name(last,"last"));',
  'const called=__name(()=>6,"called")();',
].join("\n");
const NAMES = "({a,b,c:o.c,d:o.d,e:k.e,f:K.f,g,h,hoisted,C1,C2,_:r,fail2,run9,T,parse:p.parse,used,last,seq})";

/** The `.name` of each value of `NAMES` after running `program`. */
function namesAfter(program: string): Record<string, string> {
  const values = new Script(`${HELPER}\n${program}\n${NAMES}`).runInNewContext({}) as Record<string, { name: string }>;
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v.name]));
}

describe("blankRedundantNames (scripts/blank-names.mjs)", () => {
  it("removes the calls that repeat a name and keeps the renames, every name unchanged", () => {
    const { code, removed, kept } = blankRedundantNames(FORMS);
    expect({ removed, kept }).toEqual({ removed: 12, kept: 7 });
    expect(namesAfter(code)).toEqual(namesAfter(FORMS));
    // the renames still happen: without their calls these would be named fail2, run9, _T, _parse2
    expect(namesAfter(code)).toMatchObject({ fail2: "fail", run9: "run", T: "T", parse: "_parse", used: "other" });
    expect(code.match(/__name\(/g)).toHaveLength(kept);
  });

  it("keeps every line's length (the source map still fits)", () => {
    const { code } = blankRedundantNames(FORMS);
    expect(code.split("\n").map((l) => l.length)).toEqual(FORMS.split("\n").map((l) => l.length));
  });

  it("control: removing a renaming call would change a name", () => {
    const stripped = FORMS.replace('__name(fail2,"fail");', "");
    expect(namesAfter(stripped)["fail2"]).toBe("fail2");
  });

  it("accepts the bundle's first line, a shebang", () => {
    expect(blankRedundantNames('#!/usr/bin/env node\nlet a=__name(()=>1,"a");').code).toBe('#!/usr/bin/env node\nlet a=       ()=>1     ;');
  });
});
