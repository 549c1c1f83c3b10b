// A game's move tree as the pages hold it: the main line and its variations, with the
// comments, NAGs and strength marks PDN keeps. The server reads and writes PDN and
// checks every move (the PDN library's game_tree and tree_to_game); this module only
// keeps the tree the server sent, lets the analysis board grow and edit it, and
// gives it back in the same plain form.

/** @import { Color, TreeLine, TreeMove } from "./types.js" */

import { h, moveNumber, opponent } from "./util.js";

/**
 * @typedef {object} TreeNode
 * @property {string} move the move's notation as the server wrote it
 * @property {string} comment the comment after the move ("" for none)
 * @property {string} before a variation's comment before its first move
 * @property {number[]} nags
 * @property {string} strength "!", "?!"… ("" for none)
 * @property {TreeNode[]} children the main continuation first, then its alternatives
 * @property {TreeNode | null} parent null: a move from the start position
 */

/** The symbols players read for the common NAGs (PDN's $1-$6 as PGN numbers them). */
export const NAG_SYMBOLS = /** @type {Record<number, string>} */ ({ 1: "!", 2: "?", 3: "!!", 4: "??", 5: "!?", 6: "?!" });

/**
 * A NAG as players read it: "!" for $1, else "$n".
 * @param {number} nag
 * @returns {string}
 */
export function nagText(nag) {
  return NAG_SYMBOLS[nag] ?? `$${nag}`;
}

/**
 * @param {string} move
 * @param {TreeNode | null} parent
 * @returns {TreeNode}
 */
function newNode(move, parent) {
  return { move, comment: "", before: "", nags: [], strength: "", children: [], parent };
}

export class MoveTree {
  /** the comment and NAGs before the first move of the main line */
  comment = "";
  /** @type {number[]} */
  nags = [];
  /** @type {TreeNode[]} the first moves: the main line's first, then its alternatives */
  children = [];

  /**
   * The tree of a game: from the server's tree when it has one, else the plain moves.
   * @param {TreeLine | null | undefined} line
   * @param {string[]} moves the game's main line (what the tree must begin with)
   * @returns {MoveTree}
   */
  static of(line, moves) {
    const tree = new MoveTree();
    const main = line ? line.moves.map((m) => m.move) : [];
    if (line && main.length === moves.length && main.every((m, i) => m === moves[i])) {
      tree.comment = line.comment || "";
      tree.nags = line.nags || [];
      tree.readLine(null, line);
    } else {
      let parent = null;
      for (const move of moves) parent = tree.add(parent, move);
    }
    return tree;
  }

  /**
   * Add `line` after `parent`, its moves' variations as their alternatives.
   * @param {TreeNode | null} parent
   * @param {TreeLine} line
   * @returns {TreeNode | null} the line's first move
   */
  readLine(parent, line) {
    let at = parent;
    /** @type {TreeNode | null} */
    let first = null;
    for (const item of line.moves) {
      const node = this.add(at, item.move);
      node.comment = item.comment || "";
      node.nags = item.nags || [];
      node.strength = item.strength || "";
      for (const v of item.variations || []) {
        const start = this.readLine(at, v);
        if (start) start.before = v.comment || "";
      }
      if (!first) first = node;
      at = node;
    }
    return first;
  }

  /**
   * The moves that may follow `node` (null: the start position).
   * @param {TreeNode | null} node
   * @returns {TreeNode[]}
   */
  siblings(node) {
    return node ? node.children : this.children;
  }

  /**
   * The child of `parent` playing `move`, added as the last alternative if new.
   * @param {TreeNode | null} parent
   * @param {string} move
   * @returns {TreeNode}
   */
  add(parent, move) {
    const list = this.siblings(parent);
    const known = list.find((n) => n.move === move);
    if (known) return known;
    const node = newNode(move, parent);
    list.push(node);
    return node;
  }

  /**
   * The nodes along `moves` from the start (as far as the tree has them).
   * @param {string[]} moves
   * @returns {TreeNode[]}
   */
  path(moves) {
    /** @type {TreeNode[]} */
    const out = [];
    let list = this.children;
    for (const move of moves) {
      const node = list.find((n) => n.move === move);
      if (!node) break;
      out.push(node);
      list = node.children;
    }
    return out;
  }

  /**
   * The moves from the start to `node`, then on along its main continuation.
   * @param {TreeNode | null} node
   * @returns {string[]}
   */
  lineThrough(node) {
    /** @type {string[]} */
    const before = [];
    for (let n = node; n; n = n.parent) before.unshift(n.move);
    let list = node ? node.children : this.children;
    while (list.length) {
      before.push(list[0].move);
      list = list[0].children;
    }
    return before;
  }

  /** @returns {string[]} the main line */
  mainline() {
    return this.lineThrough(null);
  }

  /**
   * Make `node`'s line the main line: at every branching on the way from the start,
   * its branch becomes the first.
   * @param {TreeNode} node
   */
  promote(node) {
    for (let n = /** @type {TreeNode | null} */ (node); n; n = n.parent) {
      const list = this.siblings(n.parent);
      const i = list.indexOf(n);
      if (i > 0) {
        list.splice(i, 1);
        list.unshift(n);
      }
    }
  }

  /**
   * Delete `node` and every move after it.
   * @param {TreeNode} node
   */
  remove(node) {
    const list = this.siblings(node.parent);
    const i = list.indexOf(node);
    if (i >= 0) list.splice(i, 1);
  }

  /**
   * The tree in the server's plain form (POST /api/analysis/export).
   * @returns {TreeLine}
   */
  toLine() {
    /** @type {TreeLine} */
    const line = lineFrom(this.children[0] || null, this.comment, this.children);
    if (this.nags.length) line.nags = this.nags;
    return line;
  }
}

/**
 * The line starting at `first` (its main continuation), with the alternatives of
 * each move as variations.
 * @param {TreeNode | null} first
 * @param {string} comment before the first move
 * @param {TreeNode[]} roots the tree's first moves
 * @returns {TreeLine}
 */
function lineFrom(first, comment, roots) {
  /** @type {TreeLine} */
  const line = { moves: [] };
  if (comment) line.comment = comment;
  for (let node = first; node; node = node.children[0] || null) {
    /** @type {TreeMove} */
    const item = { move: node.move };
    if (node.comment) item.comment = node.comment;
    if (node.nags.length) item.nags = node.nags;
    if (node.strength) item.strength = node.strength;
    const list = node.parent ? node.parent.children : roots;
    if (list[0] === node && list.length > 1) item.variations = list.slice(1).map((alt) => lineFrom(alt, alt.before, roots));
    line.moves.push(item);
  }
  return line;
}

/**
 * A move as players read it in a move list: its notation, strength mark and NAGs.
 * @param {TreeNode} node
 * @returns {string}
 */
export function moveLabel(node) {
  return `${node.move}${node.strength}${node.nags.map(nagText).join("")}`;
}

/**
 * The variation starting at `first` as a sequence of elements for a move list: move
 * numbers, moves (buttons that call `pick`), comments and nested variations in
 * parentheses, as PDN writes them.
 * @param {TreeNode} first
 * @param {number} ply the ply of `first` (1-based)
 * @param {Color} startTurn the side to move at the start of the game
 * @param {(node: TreeNode, ply: number) => void} pick
 * @param {TreeNode | null} current the node shown on the board
 * @returns {(HTMLElement | string)[]}
 */
export function variationParts(first, ply, startTurn, pick, current) {
  /** @type {(HTMLElement | string)[]} */
  const parts = [];
  if (first.before) parts.push(h("span", { class: "comment" }, first.before), " ");
  let side = ply % 2 === 1 ? startTurn : opponent(startTurn);
  let needNumber = true;
  let p = ply;
  for (let node = /** @type {TreeNode | null} */ (first); node; node = node.children[0] || null) {
    if (side === "black" || needNumber) parts.push(`${moveNumber(p, startTurn)} `);
    needNumber = false;
    const at = p;
    const here = node;
    parts.push(
      h("button", { type: "button", class: `vm${node === current ? " current" : ""}`, "data-ply": p, "aria-current": node === current ? "true" : null, onclick: () => pick(here, at) }, moveLabel(node)),
      " ",
    );
    if (node.comment) {
      parts.push(h("span", { class: "comment" }, node.comment), " ");
      needNumber = true;
    }
    // the alternatives of a move after the variation's first stand after it, as in PDN
    const list = node !== first && node.parent ? node.parent.children : [];
    for (const alt of list.slice(1)) {
      parts.push(h("span", { class: "variation" }, "(", ...variationParts(alt, p, startTurn, pick, current), ")"), " ");
      needNumber = true;
    }
    side = opponent(side);
    p += 1;
  }
  if (parts[parts.length - 1] === " ") parts.pop();
  return parts;
}

/**
 * The note under a row of a move list: the comments of the row's moves and the
 * variations that stand in for them (null when there is nothing to say).
 * @param {MoveTree} tree
 * @param {TreeNode[]} nodes the shown line's nodes (nodes[i] is ply i + 1)
 * @param {number[]} plies the plies of the row
 * @param {Color} startTurn
 * @param {(node: TreeNode, ply: number) => void} pick
 * @param {TreeNode | null} current
 * @returns {HTMLElement | null}
 */
export function rowNote(tree, nodes, plies, startTurn, pick, current) {
  /** @type {(HTMLElement | string)[]} */
  const parts = [];
  for (const ply of plies) {
    const node = nodes[ply - 1];
    if (!node) continue;
    const list = tree.siblings(node.parent);
    const others = list.filter((n) => n !== node);
    if (node.comment) parts.push(h("span", { class: "comment" }, node.comment), " ");
    for (const alt of others) {
      parts.push(h("span", { class: "variation" }, "(", ...variationParts(alt, ply, startTurn, pick, current), ")"), " ");
    }
  }
  return parts.length ? h("li", { class: "note" }, ...parts) : null;
}
