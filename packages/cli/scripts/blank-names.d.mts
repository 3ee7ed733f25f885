/** See blank-names.mjs. */
export declare function blankRedundantNames(code: string): { code: string; removed: number; kept: number };
