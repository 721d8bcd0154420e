// scripts/lint_deploy.mjs DIR... - checks the Kubernetes manifests of
// deploy/ (docs/DEPLOY.md): every document of every *.yaml against the
// Kubernetes API schema of its apiVersion and kind (kubernetes-models,
// whose validators are generated from the Kubernetes OpenAPI schemas),
// then what hpod needs of them: the server Deployment's readiness and
// liveness probes are GET /healthz, the migration Job runs `hpod migrate`,
// a worker Deployment runs `hpod worker`, and every HPOD_* variable they
// set is one hpod reads (server/config.c). Run by scripts/lint_deploy.sh
// with NODE_PATH set to its npm directory; exits 1 on any finding.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(path.join(process.env.NODE_PATH, "x.js"));
const YAML = require("yaml");
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const known = new Set(
  [...fs.readFileSync(path.join(root, "server/config.c"), "utf8")
    .matchAll(/\{"(HPOD_[A-Z0-9_]+)"/g)].map((m) => m[1]));
let bad = 0;
const fail = (where, msg) => { console.log(`${where}: ${msg}`); bad = 1; };

async function model(apiVersion, kind) {
  const file = path.join(process.env.NODE_PATH, "kubernetes-models",
                         apiVersion, `${kind}.js`);
  if (!/^[A-Za-z0-9.\/]+$/.test(apiVersion) || !/^[A-Za-z]+$/.test(kind) ||
      !fs.existsSync(file))
    throw new Error("unknown");
  return (await import(file))[kind];
}

function containers(doc) {
  const spec = doc.kind === "Job" || doc.kind === "Deployment"
    ? doc.spec?.template?.spec : null;
  return spec?.containers ?? [];
}

function checkHpod(where, doc) {
  for (const c of containers(doc)) {
    for (const e of c.env ?? [])
      if (e.name.startsWith("HPOD_") && !known.has(e.name))
        fail(where, `container ${c.name}: ${e.name} is not a variable hpod reads`);
  }
  if (doc.kind === "ConfigMap")
    for (const k of Object.keys(doc.data ?? {}))
      if (k.startsWith("HPOD_") && !known.has(k))
        fail(where, `${k} is not a variable hpod reads`);
  const cmd = (c) => (c.args ?? []).join(" ");
  const comp = doc.metadata?.labels?.["app.kubernetes.io/component"];
  if (doc.kind === "Deployment" && comp === "server") {
    for (const c of containers(doc)) {
      if (cmd(c) !== "hpod serve") fail(where, `server runs "${cmd(c)}"`);
      for (const p of ["readinessProbe", "livenessProbe"])
        if (c[p]?.httpGet?.path !== "/healthz")
          fail(where, `container ${c.name}: ${p} is not GET /healthz`);
    }
  }
  if (doc.kind === "Deployment" && comp === "worker")
    for (const c of containers(doc))
      if (cmd(c) !== "hpod worker") fail(where, `worker runs "${cmd(c)}"`);
  if (doc.kind === "Job")
    for (const c of containers(doc))
      if (cmd(c) !== "hpod migrate") fail(where, `job runs "${cmd(c)}"`);
}

const seen = {};
for (const dir of process.argv.slice(2)) {
  for (const f of fs.readdirSync(dir).filter((x) => /\.ya?ml$/.test(x)).sort()) {
    const file = path.join(dir, f);
    const docs = YAML.parseAllDocuments(fs.readFileSync(file, "utf8"));
    for (const [i, d] of docs.entries()) {
      const where = `${file}#${i + 1}`;
      if (d.errors.length) { fail(where, d.errors[0].message); continue; }
      const doc = d.toJS();
      if (!doc) continue;
      let Model;
      try {
        Model = await model(doc.apiVersion, doc.kind);
      } catch {
        fail(where, `unknown apiVersion/kind ${doc.apiVersion} ${doc.kind}`);
        continue;
      }
      try {
        new Model(doc).validate();
      } catch (e) {
        fail(where, `${doc.kind} ${doc.metadata?.name}: ${e.message}`);
      }
      checkHpod(where, doc);
      seen[doc.kind] = (seen[doc.kind] ?? 0) + 1;
    }
  }
}
for (const k of ["Deployment", "Service", "Job"])
  if (!seen[k]) fail(process.argv.slice(2).join(" "), `no ${k}`);
console.log(`lint: deploy: ${Object.entries(seen).map(([k, n]) => `${n} ${k}`).join(", ")}`
            + (bad ? ": problems above" : ": valid"));
process.exit(bad);
