// MathJax settings, loaded before MathJax itself (a file, not an inline script, so the pages can forbid inline
// scripts). TeX from the collection, the topics or anyone's comment may typeset, never style the page
// (issue 14.1; docs/judging.md):
// - only what a page marks with class "tex2jax_process" is typeset: collection posts and comments, topic titles
//   and questions, query formulas; the page's header and main carry "tex2jax_ignore" (templates/base.html), so
//   an assessor's comment, a name or a message is never read as TeX;
// - \href, \style, \class, \cssId (package html), \unicode (its font option went into a style attribute
//   unfiltered) and \require (which could load them back) are not defined: they show as unknown commands;
// - ui/safe drops every URL, class, id and style attribute that TeX still produces (\mmlToken, \bbox), and a
//   filter added below drops font families, which MathJax 3.2 writes into the style attribute as text
//   ("font-family: <value>", so "Arial;position:fixed" was a second declaration).
window.MathJax = {
  loader: {load: ["ui/safe"]},
  tex: {
    inlineMath: [["$", "$"], ["\\(", "\\)"]],
    displayMath: [["$$", "$$"], ["\\[", "\\]"]],
    processEscapes: true,
    packages: {"[-]": ["require"]},
    autoload: {html: [], unicode: []},
    require: {allow: {html: false, unicode: false}}
  },
  options: {
    processHtmlClass: "tex2jax_process",
    ignoreHtmlClass: "tex2jax_ignore",
    safeOptions: {allow: {URLs: "none", classes: "none", cssIDs: "none", styles: "none"}}
  },
  startup: {
    typeset: true,
    ready: function () {
      window.MathJax.startup.defaultReady();
      var safe = window.MathJax.startup.document.safe;
      // An explicit font family (\mmlToken's fontfamily) is dropped: the formula keeps MathJax's own fonts, and
      // fontweight/fontstyle without a family map onto MathJax's variants (no style is written).
      safe.filterMethods.filterNothing = function () { return null; };
      safe.filterAttributes.set("fontfamily", "filterNothing");
    }
  }
};
