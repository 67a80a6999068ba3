// The dashboard's only script: progressive enhancements. Every page works without it.

document.addEventListener('DOMContentLoaded', () => {
  // Copy buttons: <button data-copy="#element-id">.
  for (const button of document.querySelectorAll('[data-copy]')) {
    button.addEventListener('click', async () => {
      const target = document.querySelector(button.getAttribute('data-copy'));
      if (!target) return;
      const text = 'value' in target ? target.value : target.textContent;
      try {
        await navigator.clipboard.writeText(text.trim());
        button.textContent = 'Copied';
      } catch {
        if ('select' in target) target.select();
        button.textContent = 'Press Ctrl+C to copy';
      }
    });
  }

  // Confirmation before destructive actions: <form data-confirm="Revoke this key?">.
  for (const form of document.querySelectorAll('form[data-confirm]')) {
    form.addEventListener('submit', (event) => {
      if (!window.confirm(form.getAttribute('data-confirm'))) event.preventDefault();
    });
  }

  // Phones: the row of links scrolls sideways; the current page's link is brought into view.
  document
    .querySelector('.nav-links [aria-current="page"]')
    ?.scrollIntoView({ block: 'nearest', inline: 'center' });

  // Selects that submit their form when changed (the workspace switch).
  for (const select of document.querySelectorAll('select[data-autosubmit]')) {
    select.addEventListener('change', () => select.form?.submit());
  }

  // Regions that refresh themselves: <section data-refresh="/dashboard/inbox/messages" data-interval="3000">.
  for (const region of document.querySelectorAll('[data-refresh]')) {
    const url = region.getAttribute('data-refresh');
    const interval = Number(region.getAttribute('data-interval') || 3000);
    const refresh = async () => {
      try {
        const response = await fetch(url, { headers: { accept: 'text/html' }, credentials: 'same-origin' });
        // Signed out meanwhile: the request was redirected to the sign-in page; reload to show it whole.
        if (response.redirected) {
          window.location.reload();
          return;
        }
        if (response.ok) {
          const html = await response.text();
          if (html !== region.innerHTML) region.innerHTML = html;
          region.setAttribute('data-refreshed', new Date().toISOString());
        }
      } catch {
        // Offline for a moment: try again at the next tick.
      }
    };
    setInterval(refresh, interval);
  }
});
