// The page's HTML templating: each of the five characters that could end a
// text or an attribute value is escaped (and & first, so nothing is escaped
// twice), data interpolated as text is never markup, HTML built by the
// template and the page's own constants go in as they are, absent parts
// leave no trace, lists are joined without separators, and the literal text
// around interpolations is kept exactly.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { escapeHtml, Html, html, trustedConstant } from "../../../src/status/page/html.ts";

describe("escapeHtml", () => {
  test("each special character becomes its entity", () => {
    assert.equal(escapeHtml("&"), "&amp;");
    assert.equal(escapeHtml("<"), "&lt;");
    assert.equal(escapeHtml(">"), "&gt;");
    assert.equal(escapeHtml('"'), "&quot;");
    assert.equal(escapeHtml("'"), "&#39;");
  });

  test("every occurrence is escaped, other text kept, an entity in the text escaped once more", () => {
    assert.equal(
      escapeHtml(`<a href="x" title='y'>&amp; é</a>`),
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp; é&lt;/a&gt;",
    );
    assert.equal(escapeHtml("plain text"), "plain text");
    assert.equal(escapeHtml(""), "");
  });
});

describe("html template", () => {
  test("interpolated text is escaped, in content and in attributes", () => {
    const name = `x"><script>alert('1')</script>`;
    assert.equal(
      html`<a title="${name}">${name}</a>`.text,
      '<a title="x&quot;&gt;&lt;script&gt;alert(&#39;1&#39;)&lt;/script&gt;">x&quot;&gt;&lt;script&gt;alert(&#39;1&#39;)&lt;/script&gt;</a>',
    );
  });

  test("the literal parts are kept exactly, before, between and after interpolations", () => {
    assert.equal(html`<p>plain</p>`.text, "<p>plain</p>");
    assert.equal(html``.text, "");
    assert.equal(html`<b>${"x"}</b>`.text, "<b>x</b>");
    assert.equal(html`${"a"}${"b"}`.text, "ab");
    assert.equal(html`[${1}|${2}|${3}]`.text, "[1|2|3]");
  });

  test("undefined, null and false leave nothing; 0 and the empty string are values", () => {
    assert.equal(html`<i>${undefined}</i>`.text, "<i></i>");
    assert.equal(html`<i>${null}</i>`.text, "<i></i>");
    assert.equal(html`<i>${false}</i>`.text, "<i></i>");
    assert.equal(html`<i>${0}</i>`.text, "<i>0</i>");
    assert.equal(html`<i>${""}</i>`.text, "<i></i>");
    // The usual `cond ? html`...` : ""` and `cond && html`...`` forms.
    const shown = (on: boolean) => html`<p>${on && html`<b>on</b>`}</p>`.text;
    assert.equal(shown(true), "<p><b>on</b></p>");
    assert.equal(shown(false), "<p></p>");
  });

  test("HTML built by the template goes in as it is, not escaped again", () => {
    const inner = html`<b>${"a&b"}</b>`;
    assert.equal(html`<p>${inner}</p>`.text, "<p><b>a&amp;b</b></p>");
  });

  test("a list is joined without separators, each item rendered as itself, nested lists too", () => {
    const items = ["a<", html`<br>`, undefined, 2, ["x", html`<hr>`], null, false] as const;
    assert.equal(html`<td>${items}</td>`.text, "<td>a&lt;<br>2x<hr></td>");
    assert.equal(html`<td>${[]}</td>`.text, "<td></td>");
    assert.equal(
      html`<ul>${["1", "2"].map((n) => html`<li>${n}</li>`)}</ul>`.text,
      "<ul><li>1</li><li>2</li></ul>",
    );
  });

  test("an Html reads as its text where a string is wanted", () => {
    const h = html`<b>${"<"}</b>`;
    assert.ok(h instanceof Html);
    assert.equal(String(h), "<b>&lt;</b>");
    assert.equal(`${h}`, "<b>&lt;</b>");
  });

  test("a trusted constant is inserted unescaped", () => {
    const css = trustedConstant('a > b { content: "&"; }');
    assert.equal(css.text, 'a > b { content: "&"; }');
    assert.equal(html`<style>${css}</style>`.text, '<style>a > b { content: "&"; }</style>');
  });
});
