// MathJax settings, loaded before MathJax itself (a file, not an inline script, so the pages can forbid inline
// scripts). ui/safe strips what TeX from the collection could do besides typesetting: \href links (javascript:
// included), \style, \class and \cssId.
window.MathJax = {
  loader: {load: ["ui/safe"]},
  tex: {inlineMath: [["$", "$"], ["\\(", "\\)"]], displayMath: [["$$", "$$"], ["\\[", "\\]"]], processEscapes: true},
  options: {
    processHtmlClass: "math-container|tex2jax_process",
    ignoreHtmlClass: "tex2jax_ignore",
    safeOptions: {allow: {URLs: "none", classes: "none", cssIDs: "none", styles: "none"}}
  },
  startup: {typeset: true}
};
