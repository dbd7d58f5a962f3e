import { loadCorpusCrd, corpusGroup } from "/work/wt/coll-a/test/support/shapes-corpus.ts";
const c = loadCorpusCrd("runs") as any;
console.log(corpusGroup, c.metadata.name, c.spec.versions.map((v: any) => [v.name, v.served, v.storage, JSON.stringify(v.schema).slice(0, 300)]));
