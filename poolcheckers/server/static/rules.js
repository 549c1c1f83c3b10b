// The rule options of docs/RULES.md §9 as form fields, built from the server's
// description (GET /api/rules, RuleSet.options()): names, words, defaults and
// limits all come from the rules library; nothing about the rules is written here.
// The same answer carries the limits of the server's requests (`limits`), which the
// pages' forms offer instead of keeping copies.

/** @import { RequestLimits, RuleOptionInfo, Rules, RulesInfo } from "./types.js" */

import { api } from "./api.js";
import { t } from "./i18n.js";
import { h, plainWords } from "./util.js";

/** @type {Promise<RulesInfo> | null} */
let pending = null;

/**
 * The server's {default, options, limits} (asked once per page).
 * @returns {Promise<RulesInfo>}
 */
export function ruleOptions() {
  if (!pending) {
    pending = api.rules().catch((err) => {
      pending = null;
      throw err;
    });
  }
  return pending;
}

/**
 * The bounds the server checks its requests against (GET /api/rules `limits`).
 * @returns {Promise<RequestLimits>}
 */
export async function requestLimits() {
  return (await ruleOptions()).limits;
}

/**
 * Why the server would refuse a PDN text as too long (more bytes than its limit), in
 * words; "" when it is not (or the limit is unknown: the server then says it).
 * @param {string} text
 * @returns {Promise<string>}
 */
export async function pdnTooLong(text) {
  const limits = await requestLimits().catch(() => null);
  const bytes = new Blob([text]).size;
  if (!limits || bytes <= limits.pdn_bytes) return "";
  const kib = (/** @type {number} */ n) => Math.ceil(n / 1024);
  return t("The PDN text is {size} KiB; the server reads at most {limit} KiB at once: split it.", { size: kib(bytes), limit: kib(limits.pdn_bytes) });
}

/** @typedef {HTMLInputElement | HTMLSelectElement} RuleControl */

/**
 * The fields of the rule options: their labels, each option's control by name,
 * the chosen rules, and a way to show a rule set.
 * @typedef {object} RuleForm
 * @property {HTMLLabelElement[]} fields
 * @property {Record<string, {option: RuleOptionInfo, control: RuleControl}>} controls
 * @property {() => Rules} read
 * @property {(rules: Rules | null | undefined) => void} show
 */

/**
 * One option's control: a select of its choices, a number field or a checkbox.
 * @param {RuleOptionInfo} o
 * @param {string | null} id
 * @returns {RuleControl}
 */
function ruleControl(o, id) {
  if (o.kind === "choice") {
    return h(
      "select",
      { name: o.name, id },
      ...o.choices.map((c) => h("option", { value: String(c.value), selected: c.value === o.default }, plainWords(c.label).text)),
    );
  }
  if (o.kind === "number") {
    return h("input", { type: "number", name: o.name, id, min: o.minimum, max: o.maximum, step: 1, value: Number(o.default), inputmode: "numeric" });
  }
  return h("input", { type: "checkbox", name: o.name, id, checked: o.default === true });
}

/**
 * Form fields for every option of `spec` (the answer of ruleOptions()).
 * idPrefix: each control gets id `${idPrefix}-${name with dashes}` (e.g.
 * "rule-crown-during-capture"). Returns {fields, read(), show(rules), controls}.
 * @param {RulesInfo} spec
 * @param {{idPrefix?: string | null}} [options]
 * @returns {RuleForm}
 */
export function ruleFields(spec, { idPrefix = null } = {}) {
  /** @type {RuleForm["controls"]} */
  const controls = {};
  const fields = spec.options.map((o) => {
    const id = idPrefix ? `${idPrefix}-${o.name.replaceAll("_", "-")}` : null;
    const control = ruleControl(o, id);
    controls[o.name] = { option: o, control };
    if (o.kind === "boolean") return h("label", { class: "choice" }, control, h("span", {}, plainWords(o.label).text));
    return h("label", { class: "field" }, h("span", { class: "label" }, plainWords(o.label).text), control);
  });
  return {
    fields,
    controls,
    /** The chosen options as RuleSet.to_dict() (the server checks them, R18 etc.). */
    read() {
      /** @type {Rules} */
      const rules = {};
      for (const [name, { option, control }] of Object.entries(controls)) {
        if (control instanceof HTMLInputElement && option.kind === "boolean") rules[name] = control.checked;
        else if (option.kind === "number") rules[name] = control.value.trim() === "" ? control.value : Number(control.value);
        else rules[name] = control.value;
      }
      return rules;
    },
    /** Show a rule set (RuleSet.to_dict()) in the fields; options it lacks keep their value. */
    show(rules) {
      if (!rules) return;
      for (const [name, { option, control }] of Object.entries(controls)) {
        if (!(name in rules)) continue;
        if (control instanceof HTMLInputElement && option.kind === "boolean") control.checked = Boolean(rules[name]);
        else control.value = String(rules[name]);
      }
    },
  };
}
