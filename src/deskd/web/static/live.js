// deskd console: live refresh. The server says "change" on /live (server-sent events) when
// the desk changed; this refetches the page and swaps its #live region. It waits while a
// person is typing in that region, so a refresh never eats a half-written note.
(function () {
  "use strict";
  // Each cell names its column (data-label), which console.css shows at a phone's width,
  // where a table row becomes a small card.
  function label(root) {
    root.querySelectorAll("table").forEach(function (table) {
      var heads = [].map.call(table.querySelectorAll("thead th"), function (h) { return h.textContent; });
      table.querySelectorAll("tbody tr").forEach(function (row) {
        [].forEach.call(row.children, function (cell, i) {
          if (heads[i]) { cell.setAttribute("data-label", heads[i]); }
        });
      });
    });
  }
  label(document);
  var region = document.getElementById("live");
  if (!region || !window.EventSource) { return; }
  var pending = false;
  var busy = false;

  function typing() {
    var el = document.activeElement;
    return el && region.contains(el) && ("form" in el && el.tagName !== "BUTTON");
  }

  function refresh() {
    if (busy) { pending = true; return; }
    if (typing()) { pending = true; return; }
    busy = true;
    pending = false;
    fetch(window.location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (!html) { return; }
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("live");
        if (fresh) {
          region.innerHTML = fresh.innerHTML;
          label(region);
          document.body.setAttribute("data-refreshed", String(Date.now()));
        }
      })
      .catch(function () {})
      .then(function () { busy = false; if (pending) { refresh(); } });
  }

  region.addEventListener("focusout", function () { if (pending) { setTimeout(refresh, 0); } });
  var source = new EventSource("/live");
  source.addEventListener("hello", function () { document.body.setAttribute("data-live", "on"); });
  source.addEventListener("change", refresh);
  source.onerror = function () { document.body.setAttribute("data-live", "off"); };
  // The tick's age moves even when nothing is written: refresh once a minute regardless.
  setInterval(refresh, 60000);
})();
