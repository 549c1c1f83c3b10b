// Lessons for beginners (docs/LESSONS.md): the rule book as short series of positions,
// each asking for one move. Large board, few words, a high-contrast option. The
// server checks every answer with the rules library; progress is kept per account,
// and in the browser when signed out.

/** @import { LegalMove, PositionInfo } from "./types.js" */

import { api, errorText, request } from "./api.js";
import { BoardView } from "./board.js";
import { currentAccount, send } from "./community.js";
import { t } from "./i18n.js";
import { announce, boardPosition, h } from "./util.js";

/**
 * @typedef {{id: string, title: string, steps: {task: string, fen: string}[], done: number}} LessonInfo
 * @typedef {{correct: boolean, why: string, done: number | null, last: boolean}} AnswerResult
 */

const PROGRESS_KEY = "lessons:progress";
const CONTRAST_KEY = "lessons:high-contrast";

/** @returns {Record<string, number>} the steps done per lesson, kept in this browser */
function localProgress() {
  try {
    return JSON.parse(window.localStorage.getItem(PROGRESS_KEY) || "{}");
  } catch {
    return {};
  }
}

/**
 * @param {string} id
 * @param {number} done
 */
function keepLocal(id, done) {
  const progress = localProgress();
  progress[id] = Math.max(progress[id] || 0, done);
  try {
    window.localStorage.setItem(PROGRESS_KEY, JSON.stringify(progress));
  } catch {
    // private browsing: progress lasts as long as the page
  }
}

/** @param {boolean} on */
function setContrast(on) {
  document.body.classList.toggle("high-contrast", on);
  try {
    window.localStorage.setItem(CONTRAST_KEY, on ? "1" : "");
  } catch {
    // not kept: the switch still works on this page
  }
}

class LearnPage {
  /**
   * @param {HTMLElement} root
   * @param {boolean} signedIn
   */
  constructor(root, signedIn) {
    this.root = root;
    this.signedIn = signedIn;
    /** @type {LessonInfo[]} */
    this.lessons = [];
    /** @type {LessonInfo | null} */
    this.lesson = null;
    this.step = 0;
    this.busy = false;
    this.boardBox = h("div", { class: "board-box", id: "board" });
    this.boardHint = h("p", { class: "board-hint", id: "board-hint", "aria-hidden": "true" });
    this.board = new BoardView(this.boardBox, { onMove: (m) => this.answer(m), onHint: (text) => { this.boardHint.textContent = text; }, label: t("Lesson board") });
    this.task = h("p", { class: "learn-task", id: "learn-task", role: "status" });
    this.feedback = h("p", { class: "learn-feedback", id: "learn-feedback" });
    this.steps = h("p", { class: "learn-steps", id: "learn-steps" });
    this.next = h("button", { type: "button", class: "primary big", id: "learn-next", hidden: true, onclick: () => this.forward() }, t("Next"));
    this.error = h("p", { class: "error", role: "alert" });
    const on = window.localStorage?.getItem(CONTRAST_KEY) === "1";
    setContrast(on);
    this.contrast = h("button", { type: "button", class: "small", id: "high-contrast", "aria-pressed": String(on) }, t("High contrast"));
    this.contrast.addEventListener("click", () => {
      const now = !document.body.classList.contains("high-contrast");
      setContrast(now);
      this.contrast.setAttribute("aria-pressed", String(now));
    });
  }

  async start() {
    /** @type {LessonInfo[]} */
    const lessons = await request("GET", "/api/lessons");
    const local = localProgress();
    this.lessons = lessons.map((l) => ({ ...l, done: this.signedIn ? l.done : local[l.id] || 0 }));
    this.showList();
  }

  showList() {
    this.lesson = null;
    this.root.replaceChildren(
      h(
        "div",
        { class: "learn" },
        h("h1", {}, t("Learn to play")),
        h("p", { class: "learn-intro" }, t("Short lessons. Each one asks for a move.")),
        h("p", {}, this.contrast),
        h(
          "ol",
          { class: "lessons", id: "lessons" },
          ...this.lessons.map((l) => {
            const all = l.steps.length;
            const state = l.done >= all ? t("✓ Done") : l.done > 0 ? t("{done} of {all}", { done: l.done, all }) : "";
            return h(
              "li",
              {},
              h("button", { type: "button", class: "lesson big", "data-lesson": l.id, onclick: () => this.open(l) }, h("span", {}, l.title), h("span", { class: "lesson-state" }, state)),
            );
          }),
        ),
        this.signedIn ? "" : h("p", { class: "hint" }, t("Your progress is kept in this browser. Sign in to keep it everywhere.")),
      ),
    );
  }

  /** @param {LessonInfo} lesson */
  async open(lesson) {
    this.lesson = lesson;
    this.step = Math.min(lesson.done, lesson.steps.length - 1);
    if (lesson.done >= lesson.steps.length) this.step = 0;
    this.root.replaceChildren(
      h(
        "div",
        { class: "learn lesson-view" },
        h("p", {}, h("button", { type: "button", class: "small", id: "learn-back", onclick: () => this.start() }, t("← All lessons")), " ", this.contrast),
        h("h1", { id: "learn-title" }, lesson.title),
        this.steps,
        this.task,
        h("div", { class: "board-col" }, this.boardBox, this.boardHint),
        this.feedback,
        this.next,
        this.error,
      ),
    );
    await this.showStep();
  }

  async showStep() {
    const lesson = this.lesson;
    if (!lesson) return;
    const step = lesson.steps[this.step];
    /** @type {PositionInfo} */
    const info = await api.position(step.fen, [], null);
    this.board.setFlipped(info.turn === "black");
    this.board.setPosition(boardPosition(info.board, info.turn), { animate: false });
    this.board.setLegalMoves(info.legal_moves, true);
    this.steps.textContent = t("Step {step} of {all}", { step: this.step + 1, all: lesson.steps.length });
    this.task.textContent = step.task;
    this.feedback.textContent = "";
    this.feedback.className = "learn-feedback";
    this.next.hidden = true;
    announce(step.task);
  }

  /** @param {LegalMove} move */
  async answer(move) {
    const lesson = this.lesson;
    if (!lesson || this.busy) return;
    this.busy = true;
    this.board.setLegalMoves([], false);
    // the move is shown at once (the server then says whether it was the one)
    const mover = this.board.position.turn;
    this.board.setPosition(boardPosition(move.board_after, mover === "black" ? "white" : "black"), { move });
    try {
      /** @type {AnswerResult} */
      const result = await send("POST", `/api/lessons/${encodeURIComponent(lesson.id)}/answer`, { step: this.step, move: move.notation });
      this.feedback.textContent = result.correct ? t("Right! {why}", { why: result.why }) : result.why;
      this.feedback.className = `learn-feedback ${result.correct ? "good" : "bad"}`;
      announce(this.feedback.textContent, !result.correct);
      if (result.correct) {
        const done = result.done ?? this.step + 1;
        lesson.done = Math.max(lesson.done, done);
        if (!this.signedIn) keepLocal(lesson.id, this.step + 1);
        this.next.textContent = result.last ? t("Lesson done: back to the lessons") : t("Next");
        this.next.hidden = false;
        this.next.focus();
      } else {
        window.setTimeout(() => this.showStep(), 900);
      }
    } catch (err) {
      this.error.textContent = errorText(err);
      await this.showStep();
    } finally {
      this.busy = false;
    }
  }

  async forward() {
    const lesson = this.lesson;
    if (!lesson) return;
    if (this.step + 1 >= lesson.steps.length) {
      this.showList();
      return;
    }
    this.step += 1;
    await this.showStep();
  }
}

/** @param {HTMLElement} root */
export async function render(root) {
  const account = await currentAccount();
  await new LearnPage(root, account !== null).start();
}
