// MathJax settings, loaded before MathJax itself (a file, not an inline script, so the pages can forbid inline
// scripts). TeX from the collection, the topics or anyone's comment may typeset, never style the page
// (docs/judging.md):
// - only what a page marks with class "tex2jax_process" is typeset: collection posts and comments, topic titles
//   and questions, query formulas; the page's header and main carry "tex2jax_ignore" (templates/base.html), so
//   an assessor's comment, a name or a message is never read as TeX;
// - \href, \style, \class, \cssId (package html), \unicode (its font option went into a style attribute
//   unfiltered) and \require (which could load them back) are not defined: they show as unknown commands;
// - ui/safe drops every URL, class, id and style attribute that TeX still produces (\mmlToken, \bbox), and a
//   filter added below drops font families, which MathJax 3.2 writes into the style attribute as text
//   ("font-family: <value>", so "Arial;position:fixed" was a second declaration);
// - TeX's own lengths (\kern, \hspace, \raise, \lower, \rule, \mathstrut-like spaces: the width, height, depth,
//   lspace and voffset of mspace and mpadded) are capped at ±lengthMax em (docs/security.md), so that a formula cannot
//   make itself 3,000 px wide or tall; what still reaches outside the formula (many kerns in a row, \llap) is clipped
//   to it by the math container rule at the end of static/css/site.css.
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
    safeOptions: {allow: {URLs: "none", classes: "none", cssIDs: "none", styles: "none"}, lengthMax: 3}
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
      // An absolute length (3000px, -50em, +2pt) is capped at ±lengthMax em, keeping an increment's "+"; a length
      // relative to the content (\llap's "-1width", "0", a named space) is bounded by that content, and kept.
      safe.filterMethods.filterTexLength = function (safe, value) {
        var m = String(value).trim().match(/^([-+]?)(\d+\.?\d*|\.\d+)(em|ex|px|pt|pc|mm|cm|in|mu)$/);
        if (!m) return String(value);  // \llap's width is the number 0: returned as is, it would drop the attribute
        var length = m[3] === "mu" ? parseFloat(m[2]) / 18 + "em" : m[2] + m[3];  // 18 mu to the em
        var capped = safe.filterMethods.filterStyleLength(safe, "", (m[1] === "-" ? "-" : "") + length);
        return (m[1] === "+" && capped.charAt(0) !== "-" ? "+" : "") + capped;
      };
      ["width", "height", "depth", "lspace", "voffset"].forEach(function (name) {
        safe.filterAttributes.set(name, "filterTexLength");
      });
    }
  }
};
