// Progress while waiting: a spinner with the prediction's state on a terminal, nothing when
// stderr is piped or --json is set (scripts and agents read stdout and the exit code).

export interface Progress {
  update(text: string): void;
  done(): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export function progress(enabled: boolean, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!enabled || !stream.isTTY) return { update() {}, done() {} };
  let text = '';
  let frame = 0;
  const started = Date.now();
  const draw = () => {
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    stream.write(`\r\x1b[2K${FRAMES[frame++ % FRAMES.length]} ${text} ${seconds}s`);
  };
  const timer = setInterval(draw, 100);
  timer.unref();
  return {
    update(next) {
      text = next;
      draw();
    },
    done() {
      clearInterval(timer);
      stream.write('\r\x1b[2K');
    },
  };
}
