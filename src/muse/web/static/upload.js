// The import form: read the chosen book file in the browser and put its bytes (base64) in the
// form, since the workbench posts urlencoded forms only. Nothing leaves this machine but the form.
document.addEventListener("change", function (event) {
  var input = event.target;
  if (!input.matches || !input.matches("input[type=file][data-into]")) return;
  var form = input.form, file = input.files[0];
  var into = form.querySelector("input[name=" + input.dataset.into + "]");
  var name = form.querySelector("input[name=filename]");
  var title = form.querySelector("input[name=title]");
  var button = form.querySelector("button[type=submit]");
  var status = form.querySelector(".upload-status");
  into.value = "";
  if (!file) return;
  button.disabled = true;
  status.textContent = "正在读取 " + file.name + "……";
  var reader = new FileReader();
  reader.onload = function () {
    var url = String(reader.result);
    into.value = url.slice(url.indexOf(",") + 1);
    name.value = file.name;
    if (title && !title.value) title.value = file.name.replace(/\.(txt|md|markdown)$/i, "");
    status.textContent = "已读取 " + file.name + "（" + file.size + " 字节）";
    button.disabled = false;
  };
  reader.onerror = function () { status.textContent = "读取文件失败，请重新选择。"; };
  reader.readAsDataURL(file);
});
