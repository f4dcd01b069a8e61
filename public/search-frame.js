// Inside a sandboxed frame without allow-same-origin: this script and the JSONP script it
// loads cannot read the app's storage, cookies or DOM. The URL comes in the fragment; the
// answer goes back to the parent by postMessage, once.
(function () {
  "use strict";
  var answered = false;
  function reply(message) {
    if (answered) return;
    answered = true;
    parent.postMessage(message, "*");
  }
  var url = decodeURIComponent(location.hash.slice(1));
  if (!/^https?:\/\//.test(url)) {
    reply({ error: "not an http(s) URL" });
    return;
  }
  window.__jsonpAnswer = function (data) {
    try {
      reply({ json: JSON.stringify(data) });
    } catch (e) {
      reply({ error: "the answer could not be read" });
    }
  };
  var script = document.createElement("script");
  script.src = url + (url.indexOf("?") < 0 ? "?" : "&") + "callback=__jsonpAnswer";
  script.onerror = function () {
    reply({ error: "the search service could not be reached" });
  };
  script.onload = function () {
    // A script that loaded without calling back was not a JSONP answer.
    setTimeout(function () {
      reply({ error: "the search service did not answer with JSONP" });
    }, 0);
  };
  document.head.appendChild(script);
})();
