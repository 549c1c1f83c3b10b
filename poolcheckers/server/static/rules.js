// The rule options of RULES.md §9 as form fields, built from the server's
// description (GET /api/rules, RuleSet.options()): names, words, defaults and
// limits all come from the rules library; nothing about the rules is written here.

import { request } from "./api.js";
import { h } from "./util.js";

let pending = null;

/** The server's {default, options} (asked once per page). */
export function ruleOptions() {
  if (!pending) {
    pending = request("GET", "/api/rules").catch((err) => {
      pending = null;
      throw err;
    });
  }
  return pending;
}

/**
 * Form fields for every option of `spec` (the answer of ruleOptions()).
 * idPrefix: each control gets id `${idPrefix}-${name with dashes}` (e.g.
 * "rule-crown-during-capture"). Returns {fields, read(), show(rules), controls}.
 */
export function ruleFields(spec, { idPrefix = null } = {}) {
  const controls = {};
  const fields = spec.options.map((o) => {
    const id = idPrefix ? `${idPrefix}-${o.name.replaceAll("_", "-")}` : null;
    let control;
    if (o.kind === "choice") {
      control = h(
        "select",
        { name: o.name, id },
        ...o.choices.map((c) => h("option", { value: c.value, selected: c.value === o.default }, c.label)),
      );
    } else if (o.kind === "number") {
      control = h("input", { type: "number", name: o.name, id, min: o.minimum, max: o.maximum, step: 1, value: o.default, inputmode: "numeric" });
    } else {
      control = h("input", { type: "checkbox", name: o.name, id, checked: o.default === true });
    }
    controls[o.name] = { option: o, control };
    if (o.kind === "boolean") return h("label", { class: "choice" }, control, h("span", {}, o.label));
    return h("label", { class: "field" }, h("span", { class: "label" }, o.label), control);
  });
  return {
    fields,
    controls,
    /** The chosen options as RuleSet.to_dict() (the server checks them, R18 etc.). */
    read() {
      const rules = {};
      for (const [name, { option, control }] of Object.entries(controls)) {
        if (option.kind === "boolean") rules[name] = control.checked;
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
        if (option.kind === "boolean") control.checked = Boolean(rules[name]);
        else control.value = String(rules[name]);
      }
    },
  };
}
