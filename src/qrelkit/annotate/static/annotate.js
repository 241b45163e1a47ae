// Keyboard shortcuts and time-on-case for the judging page. Loaded as a file:
// the Content-Security-Policy forbids inline scripts.
(function () {
  "use strict";

  function init() {
    var form = document.getElementById("vote-form");
    if (!form) return;
    var started = Date.now();
    var sending = false;

    form.addEventListener("submit", function (e) {
      if (sending) { e.preventDefault(); return; }  // one click, one vote
      sending = true;
      var s = form.querySelector('input[name="seconds"]');
      if (s) s.value = ((Date.now() - started) / 1000).toFixed(1);
      form.classList.add("sending");
    });

    document.addEventListener("keydown", function (e) {
      if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) return;
      var t = e.target;
      if (t && (t.tagName === "TEXTAREA" || t.tagName === "INPUT" || t.tagName === "SELECT" || t.isContentEditable)) {
        if (e.key === "Escape") t.blur();  // leave the comment box to use the keys again
        return;
      }
      var key = (e.key || "").toLowerCase();
      if (key.length !== 1) return;
      var buttons = form.querySelectorAll("button[data-key]");
      for (var i = 0; i < buttons.length; i++) {
        if (buttons[i].getAttribute("data-key") === key) {
          e.preventDefault();
          buttons[i].click();
          return;
        }
      }
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
