// Move and capture sounds of the game page, made by the browser (no sound files to
// fetch), with the player's mute kept in the browser.

import { storageGet, storageSet } from "./util.js";

const SOUND_KEY = "poolcheckers.sound";
/** @type {AudioContext | null} */
let audio = null;

/** @returns {boolean} whether move sounds are on (on unless the player muted them) */
export function soundOn() {
  return storageGet(SOUND_KEY) !== "off";
}

/** @param {boolean} on */
export function setSound(on) {
  storageSet(SOUND_KEY, on ? "on" : "off");
}

/**
 * The sound of a move: a soft tick, two for a capture, made by the browser (no sound
 * files to fetch). Silent when muted, or before the page had a click or key press
 * (browsers allow sound only then). The last sound played is on `<body data-sound>`.
 * @param {"move" | "capture"} kind
 */
export function moveSound(kind) {
  if (!soundOn()) return;
  document.body.dataset.sound = kind;
  try {
    audio = audio || new AudioContext();
    if (audio.state === "suspended") void audio.resume();
    const ticks = kind === "capture" ? [0, 0.09] : [0];
    for (const at of ticks) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = kind === "capture" ? 330 : 520;
      gain.gain.setValueAtTime(0.18, audio.currentTime + at);
      gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + at + 0.08);
      osc.connect(gain).connect(audio.destination);
      osc.start(audio.currentTime + at);
      osc.stop(audio.currentTime + at + 0.09);
    }
  } catch {
    // no audio in this browser: the move is still shown and announced
  }
}
